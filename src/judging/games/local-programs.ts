/**
 * Programs for the CLI's local runner without the wall: the program judge's own compile and run
 * commands (languages.ts), run on this machine with the build folder in place of /build. The
 * runtimes are looked up at the Debian paths the wall uses, else by name on PATH.
 */
import { execFile } from 'node:child_process';
import { accessSync, constants as fsConstants, existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { buildProgram, writeProgramSources } from '../program/build';
import { detectProgram } from '../program/detect';
import { BUILD_DIR, LANGUAGES, type LanguageSpec } from '../program/languages';
import type { SubmissionForJudging } from '../types';
import type { BaselineBot } from './engine';
import type { ProcessPlayerCommand } from './process-player';

const execFileAsync = promisify(execFile);

export type LocalProgram =
  | { kind: 'ready'; label: string; language: LanguageSpec; command: ProcessPlayerCommand; dir: string }
  | { kind: 'compile_error'; label: string; reason: string };

function onPath(binary: string): string {
  if (existsSync(binary)) return binary;
  for (const dir of (process.env.PATH ?? '/usr/bin:/bin').split(':')) {
    const candidate = path.join(dir, path.basename(binary));
    try {
      accessSync(candidate, fsConstants.X_OK);
      return candidate;
    } catch {
      // keep looking
    }
  }
  return binary;
}

function localArgv(argv: readonly string[], dir: string): string[] {
  return argv.map((arg, index) => {
    const replaced = arg.split(BUILD_DIR).join(dir);
    return index === 0 ? onPath(replaced) : replaced;
  });
}

function localEnv(env: Readonly<Record<string, string>> | undefined, dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env ?? {}))
    out[key] = value
      .replace(/^\/work/, dir)
      .split(BUILD_DIR)
      .join(dir);
  if (env?.GOCACHE !== undefined) out.GOCACHE = path.join(dir, 'gocache');
  return out;
}

/**
 * A program (the files of a player, as a submission sends them; DESIGN "Multi-file programs") or a
 * game's baseline bot, detected and built as on the server in a fresh temporary folder.
 */
export async function prepareLocalProgram(
  label: string,
  submission: SubmissionForJudging | undefined,
  boss: BaselineBot | undefined,
): Promise<LocalProgram> {
  const detection = detectProgram(
    boss === undefined
      ? (submission ?? { content: '', files: [] })
      : { content: '', files: [{ path: boss.file, content: boss.source }] },
  );
  if (detection.kind === 'undetectable') return { kind: 'compile_error', label, reason: detection.reason };
  const language = LANGUAGES[detection.language];
  const { program } = detection;
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ccs-play-'));
  const folder = { dir, remove: async () => {} };
  if (language.id === 'typescript' || language.id === 'javascript') {
    // esbuild's bundle in a child process (no wall involved), as on the server.
    const built = await buildProgram(language, program, folder);
    if (built.kind === 'compile_error') return { kind: 'compile_error', label, reason: built.compileOutput };
  } else {
    await writeProgramSources(language, program, folder);
    const compile = language.compileCommand?.({
      entry: program.entry,
      files: program.files.map((file) => file.path),
    });
    if (compile !== undefined) {
      const argv = localArgv(compile.argv, dir);
      try {
        await execFileAsync(argv[0], argv.slice(1), {
          cwd: dir,
          env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, ...localEnv(compile.env, dir) },
          timeout: 120_000,
        });
      } catch (error) {
        const failed = error as { stderr?: string; stdout?: string; message: string };
        return {
          kind: 'compile_error',
          label,
          reason: `${failed.stdout ?? ''}${failed.stderr ?? ''}`.trim() || failed.message,
        };
      }
    }
  }
  const run = language.runCommand({ memoryMb: 256, entry: program.entry });
  return {
    kind: 'ready',
    label,
    language,
    dir,
    command: { argv: localArgv(run.argv, dir), cwd: dir, env: localEnv(run.env, dir) },
  };
}

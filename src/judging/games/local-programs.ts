/**
 * Programs for the CLI's local runner without the wall: the program judge's own compile and run
 * commands (languages.ts), run on this machine with the build folder in place of /build. The
 * runtimes are looked up at the Debian paths the wall uses, else by name on PATH.
 */
import { execFile } from 'node:child_process';
import { accessSync, constants as fsConstants, existsSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { buildProgram } from '../program/build';
import { BUILD_DIR, LANGUAGES, type LanguageSpec, languageByExtension } from '../program/languages';
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
  for (const [key, value] of Object.entries(env ?? {})) out[key] = value.replace(/^\/work/, dir);
  if (env?.GOCACHE !== undefined) out.GOCACHE = path.join(dir, 'gocache');
  return out;
}

/** A file (its language from its extension) or a game's baseline bot, built in a fresh temporary folder. */
export async function prepareLocalProgram(
  file: string,
  boss: BaselineBot | undefined,
): Promise<LocalProgram> {
  const label = boss === undefined ? file : 'boss';
  const id = boss === undefined ? languageByExtension(file) : boss.language;
  if (id === undefined)
    return { kind: 'compile_error', label, reason: `cannot tell the language of ${file}` };
  const language = LANGUAGES[id];
  const source = boss === undefined ? await readFile(file, 'utf8') : boss.source;
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ccs-play-'));
  if (language.id === 'typescript') {
    // esbuild's transform in a child process (no wall involved), as on the server.
    const built = await buildProgram(language, source, { dir, remove: async () => {} });
    if (built.kind === 'compile_error') return { kind: 'compile_error', label, reason: built.compileOutput };
  } else {
    await writeFile(path.join(dir, language.sourceFile), source);
    const compile = language.compileCommand?.();
    if (compile !== undefined) {
      try {
        await execFileAsync(localArgv(compile.argv, dir)[0], localArgv(compile.argv, dir).slice(1), {
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
  const run = language.runCommand({ memoryMb: 256 });
  return {
    kind: 'ready',
    label,
    language,
    dir,
    command: { argv: localArgv(run.argv, dir), cwd: dir, env: localEnv(run.env, dir) },
  };
}

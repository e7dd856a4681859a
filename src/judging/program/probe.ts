/**
 * The worker's start-up probe of each language: the runtime's version, then a small program
 * compiled and run on an input inside the wall, exactly as a submission would be. A language is
 * offered only once its probe passes.
 */
import { runNativeInSandbox } from '../sandbox/native-run';
import { buildProgram, newBuildFolder, runProgram } from './build';
import { LANGUAGES, LANGUAGE_IDS, type LanguageId } from './languages';

/** Reads one line and prints it doubled: proves stdin, stdout and the compile step. */
export const PROBE_PROGRAMS: Readonly<Record<LanguageId, string>> = {
  python: 'n = int(input())\nprint(n * 2)\n',
  c: '#include <stdio.h>\nint main(void) { long n; if (scanf("%ld", &n) != 1) return 1; printf("%ld\\n", n * 2); return 0; }\n',
  cpp: '#include <iostream>\nint main() { long n; std::cin >> n; std::cout << n * 2 << std::endl; }\n',
  go: 'package main\n\nimport "fmt"\n\nfunc main() {\n\tvar n int64\n\tfmt.Scan(&n)\n\tfmt.Println(n * 2)\n}\n',
  rust: 'use std::io::Read;\nfn main() { let mut s = String::new(); std::io::stdin().read_to_string(&mut s).unwrap(); let n: i64 = s.trim().parse().unwrap(); println!("{}", n * 2); }\n',
  java: 'import java.util.Scanner;\npublic class Main { public static void main(String[] a) { long n = new Scanner(System.in).nextLong(); System.out.println(n * 2); } }\n',
  javascript: "const n = Number(require('fs').readFileSync(0, 'utf8').trim());\nconsole.log(n * 2);\n",
  typescript:
    "import { readFileSync } from 'fs';\nconst n: number = Number(readFileSync(0, 'utf8').trim());\nconsole.log(n * 2);\n",
};

export type ProbeResult =
  { language: LanguageId; ok: true; version: string } | { language: LanguageId; ok: false; reason: string };

const PROBE_LIMITS = { timeLimitMs: 10_000, memoryMb: 512, outputBytes: 4096, stderrBytes: 4096 };

export async function probeLanguage(id: LanguageId, signal?: AbortSignal): Promise<ProbeResult> {
  const spec = LANGUAGES[id];
  const binary = spec.runtimeBinary();
  if (binary === undefined) return { language: id, ok: false, reason: `${spec.name}: runtime not installed` };
  try {
    const versionCommand = spec.versionCommand();
    const version = await runNativeInSandbox({
      argv: versionCommand.argv,
      env: versionCommand.env,
      cpuMs: 10_000,
      wallMs: 30_000,
      memoryMb: 512,
      programAddressSpaceMb: 0,
      outputBytes: 4096,
      stderrBytes: 4096,
      signal,
    });
    const match = spec.versionPattern.exec(`${version.stdout}\n${version.stderr}`);
    if (match === null) {
      return {
        language: id,
        ok: false,
        reason: `no version in: ${(version.stdout + version.stderr).slice(0, 200)}`,
      };
    }
    const folder = await newBuildFolder();
    try {
      const built = await buildProgram(spec, PROBE_PROGRAMS[id], folder, signal);
      if (built.kind === 'compile_error') {
        return {
          language: id,
          ok: false,
          reason: `probe did not compile: ${built.compileOutput.slice(0, 300)}`,
        };
      }
      const run = await runProgram(spec, folder, PROBE_LIMITS, '21\n', { followed: false, signal });
      if (run.stdout.trim() !== '42') {
        return {
          language: id,
          ok: false,
          reason: `probe printed ${JSON.stringify(run.stdout.slice(0, 100))} (${run.limit}, ${run.stderr.slice(0, 200)})`,
        };
      }
    } finally {
      await folder.remove();
    }
    return { language: id, ok: true, version: match[1] };
  } catch (error) {
    return { language: id, ok: false, reason: (error as Error).message.slice(0, 300) };
  }
}

/** Probes every language one after another (they compete for the same slots and cores). */
export async function probeLanguages(
  onResult: (result: ProbeResult) => void | Promise<void>,
  signal?: AbortSignal,
): Promise<ProbeResult[]> {
  const results: ProbeResult[] = [];
  for (const id of LANGUAGE_IDS) {
    if (signal?.aborted) break;
    const result = await probeLanguage(id, signal);
    results.push(result);
    await onResult(result);
  }
  return results;
}

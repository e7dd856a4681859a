/**
 * CLI start-up: whole-process wall time of `cli help` and `connector help` (spawn to exit), over
 * several runs, alternated with the anchor `node -e ''` measured in the same run (what Node alone
 * costs on this machine now). The compiled CLI (`npm run build` → dist) is what people run and
 * what is measured; without dist it refuses at once (npm run bench builds it first).
 *
 *   npx tsx bench/cli-startup.ts [--runs 9]     (also part `cli` of npm run bench)
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { type BenchRow } from './lib/report';
import { startupRow } from './lib/startup-row';

const ROOT = path.resolve(__dirname, '..');
const TARGET_MS = 1000;

/** Where `npm run build` may put an entry (rootDir "." today; "src" if the layout moves). */
function compiled(entry: string): string | null {
  for (const candidate of [path.join(ROOT, 'dist/src', entry), path.join(ROOT, 'dist', entry)]) {
    if (existsSync(candidate)) return candidate;
  }
  return null;
}

/**
 * How the CLI is run: the compiled entry `npm run build` made. Without one it refuses at once
 * (measuring tsx instead would put a different program in the row).
 */
export function commandFor(entry: string): { args: string[]; how: string } {
  const built = compiled(entry.replace(/\.ts$/, '.js'));
  if (!built) throw new Error(`no compiled ${entry} under dist/: run \`npm run build\` first`);
  return { args: [built], how: `compiled (${path.relative(ROOT, built)})` };
}

function wallMs(args: string[]): number {
  const started = process.hrtime.bigint();
  const run = spawnSync(process.execPath, args, { cwd: ROOT, stdio: 'ignore', env: process.env });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (run.status !== 0) throw new Error(`node ${args.join(' ')} exited ${run.status}`);
  return ms;
}

export function benchCliStartup(runs = 9): BenchRow[] {
  const subjects = [
    { figure: 'CLI start-up: `cli help`', entry: 'cli/index.ts', args: ['help'] },
    { figure: 'CLI start-up: `connector help`', entry: 'connector-client/cli.ts', args: ['help'] },
  ];
  const rows: BenchRow[] = [];
  for (const subject of subjects) {
    const { args, how } = commandFor(subject.entry);
    const times: number[] = [];
    const anchor: number[] = [];
    wallMs([...args, ...subject.args]); // warm the file cache once, unmeasured
    for (let i = 0; i < runs; i++) {
      // Alternated, so both see the same machine.
      anchor.push(wallMs(['-e', '']));
      times.push(wallMs([...args, ...subject.args]));
    }
    rows.push(
      startupRow(
        subject.figure,
        times,
        anchor,
        TARGET_MS,
        `${runs} runs each, whole process (spawn → exit), ${how}`,
      ),
    );
  }
  return rows;
}

if (require.main === module) {
  const i = process.argv.indexOf('--runs');
  const runs = i > 0 ? Number(process.argv[i + 1]) : 9;
  process.stdout.write(`${JSON.stringify(benchCliStartup(runs), null, 2)}\n`);
}

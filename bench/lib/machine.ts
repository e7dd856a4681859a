import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';

/** What the figures were measured on (docs/benchmarks.md records it beside every table). */
export interface MachineInfo {
  nproc: number;
  cpuModel: string;
  memory: string;
  node: string;
  postgres: string;
}

export function machineInfo(): MachineInfo {
  const sh = (cmd: string, args: string[]) => {
    try {
      return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    } catch {
      return 'unknown';
    }
  };
  const memLine =
    sh('free', ['-h'])
      .split('\n')
      .find((l) => l.startsWith('Mem:')) ?? '';
  const [, total = '?', used = '?'] = memLine.split(/\s+/);
  return {
    nproc: Number(sh('nproc', [])) || os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    memory: `${total} total, ${used} used`,
    node: process.version,
    postgres: sh('psql', ['-h', '127.0.0.1', '-U', 'postgres', '-Atc', 'SHOW server_version']),
  };
}

/** The 1-minute load average, for the "load" column beside each figure. */
export const loadAverage = (): number => Math.round(os.loadavg()[0] * 100) / 100;

/** Other engineers' jest runs (anything named jest that is not this process or its ancestors). */
export function foreignJestProcesses(): string[] {
  const mine = new Set<number>();
  let pid = process.pid;
  for (let i = 0; i < 20 && pid > 1; i++) {
    mine.add(pid);
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      pid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    } catch {
      break;
    }
  }
  let out = '';
  try {
    out = execFileSync('pgrep', ['-af', 'jest'], { encoding: 'utf8' });
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
  return out
    .split('\n')
    .filter(Boolean)
    .filter((line) => {
      const pidOf = Number(line.split(' ')[0]);
      if (mine.has(pidOf)) return false;
      // Our own children (jest workers of this run) descend from this process; ancestors'
      // other descendants do not count as ours (they may be other engineers' runs).
      return !descendsFrom(pidOf, new Set([process.pid]));
    });
}

function descendsFrom(pid: number, ancestors: Set<number>): boolean {
  for (let i = 0; i < 20 && pid > 1; i++) {
    if (ancestors.has(pid)) return true;
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      pid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    } catch {
      return false;
    }
  }
  return false;
}

const CLK_TCK = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** CPU time (user + system, ms) a process has used so far; NaN when it is gone. */
export function processCpuMs(pid: number | undefined): number {
  if (!pid) return NaN;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK; // utime, stime
  } catch {
    return NaN;
  }
}

/** CPU time (ms) used so far by every PostgreSQL process of the machine (server, backends, exited backends). */
export function postgresCpuMs(): number {
  let total = 0;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (!stat.includes('(postgres)')) continue;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // utime + stime, plus cutime + cstime: the postmaster inherits the CPU time of backends that
      // exited (reaped children), so the total never goes down when connections close.
      total +=
        ((Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) * 1000) /
        CLK_TCK;
    } catch {
      /* exited meanwhile */
    }
  }
  return total;
}

/** The pid of the Temporal dev server listening on `address`'s port (`temporal server start-dev --port N`). */
export function temporalServerPid(address: string): number | undefined {
  const port = address.split(':').pop();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (argv.includes('start-dev') && argv[argv.indexOf('--port') + 1] === port) return Number(entry);
    } catch {
      /* exited meanwhile */
    }
  }
  return undefined;
}

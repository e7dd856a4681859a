/**
 * A player as a plain process, outside the wall: what the CLI's local runner uses where no wall
 * is available (it says so). Frozen between its turns with SIGSTOP on its process group, its CPU
 * time read from /proc (itself and the children it reaped); elsewhere than Linux its wall time
 * stands in for CPU time.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { AnswerReader, BoundedLog } from './line-reader';
import { processTree, runQueueWaits, wallDeadline } from '../wall-deadline';
import {
  EXIT_GRACE_MAX_EXTRA_MS,
  EXIT_GRACE_MS,
  type PlayerChannel,
  type TurnBudget,
  type TurnResult,
} from './player';

export interface ProcessPlayerCommand {
  argv: readonly string[];
  cwd: string;
  env?: Readonly<Record<string, string>>;
}

const CPU_POLL_MS = 20;

/** CPU time (ms) of a process and its reaped children, from /proc/<pid>/stat; undefined where unreadable. */
function procCpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime, stime, cutime, cstime are fields 14–17 (1-based), i.e. 11–14 after the command.
    const ticks = [11, 12, 13, 14].reduce((sum, index) => sum + Number(fields[index]), 0);
    return (ticks * 1000) / 100;
  } catch {
    return undefined;
  }
}

export function processPlayer(command: ProcessPlayerCommand): PlayerChannel {
  let child: ChildProcessWithoutNullStreams | undefined;
  let exited = false;
  let streamsClosed = false;
  let exitDescription = '';
  const reader = new AnswerReader();
  const log = new BoundedLog();
  let onExit: (() => void) | undefined;
  let closed: Promise<void> | undefined;

  const signalGroup = (signal: NodeJS.Signals) => {
    if (child?.pid === undefined || exited) return;
    try {
      process.kill(-child.pid, signal);
    } catch {
      // gone
    }
  };

  const start = (): string | undefined => {
    try {
      child = spawn(command.argv[0], command.argv.slice(1), {
        cwd: command.cwd,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: command.cwd, ...command.env },
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: true,
      });
    } catch (error) {
      return (error as Error).message;
    }
    child.stdout.on('data', (chunk: Buffer) => reader.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => log.push(chunk));
    child.stdin.on('error', () => {});
    child.on('error', (error) => {
      exitDescription ||= `could not start: ${error.message}`;
      exited = true;
      onExit?.();
    });
    child.on('exit', (code, signal) => {
      exited = true;
      exitDescription ||= signal === null ? `exited with code ${code}` : `killed by ${signal}`;
      onExit?.();
    });
    // 'exit' can come before the last of stderr is read; 'close' comes after both pipes ended.
    child.on('close', () => {
      streamsClosed = true;
    });
    return undefined;
  };

  return {
    async turn(line: string, budget: TurnBudget): Promise<TurnResult> {
      if (child === undefined) {
        const failed = start();
        if (failed !== undefined) return { kind: 'crash', reason: `could not start: ${failed}` };
      } else {
        signalGroup('SIGCONT');
      }
      if (exited) return { kind: 'crash', reason: `the program ended before answering (${exitDescription})` };
      const pid = child!.pid!;
      const baseline = procCpuMs(pid);
      const began = performance.now();
      const used = () => {
        const now = procCpuMs(pid);
        return now === undefined || baseline === undefined ? performance.now() - began : now - baseline;
      };
      const answer = reader.expect();
      child!.stdin.write(line);
      return new Promise<TurnResult>((resolve) => {
        let settled = false;
        const finish = (result: TurnResult) => {
          if (settled) return;
          settled = true;
          clearTimeout(wall);
          clearInterval(cpu);
          onExit = undefined;
          reader.cancel();
          if (result.kind === 'line' || result.kind === 'overlong') signalGroup('SIGSTOP');
          else signalGroup('SIGKILL');
          resolve(result);
        };
        const wall = setTimeout(
          () =>
            finish({
              kind: 'timeout',
              cpuMs: used(),
              reason: `no answer within the turn's wall cap (${budget.wallMs} ms)`,
            }),
          budget.wallMs,
        );
        const cpu = setInterval(() => {
          const spent = used();
          if (spent > budget.cpuMs) {
            finish({
              kind: 'timeout',
              cpuMs: spent,
              reason: `used more than ${budget.cpuMs} ms of CPU in one turn`,
            });
          }
        }, CPU_POLL_MS);
        onExit = () =>
          finish({ kind: 'crash', reason: `the program ended before answering (${exitDescription})` });
        if (exited) onExit();
        void answer.then((got) =>
          finish('overlong' in got ? { kind: 'overlong' } : { kind: 'line', text: got.line, cpuMs: used() }),
        );
      });
    },
    close(endLine: string | undefined): Promise<void> {
      closed ??= (async () => {
        if (child === undefined || streamsClosed) return;
        if (!exited) {
          signalGroup('SIGCONT');
          if (endLine !== undefined) child.stdin.write(endLine);
          child.stdin.end();
        }
        // Until its pipes are closed, not only until it exits: what it wrote to stderr last (its
        // answer to the end line) is then in its log (CI: "done line" missing from a boss's log).
        // The grace is the player's own time: a player starved of CPU on a busy machine (its
        // answer to the end line not yet written) is given the time it waited for one.
        const pid = child.pid;
        await new Promise<void>((resolve) => {
          const grace = wallDeadline({
            wallMs: EXIT_GRACE_MS,
            maxExtraMs: EXIT_GRACE_MAX_EXTRA_MS,
            readWaits: async () => (pid === undefined ? new Map() : runQueueWaits(await processTree(pid))),
            onExpire: resolve,
          });
          child!.once('close', () => {
            grace.cancel();
            resolve();
          });
          if (streamsClosed) {
            grace.cancel();
            resolve();
          }
        });
        signalGroup('SIGKILL');
      })();
      return closed;
    },
    stderr: () => log.text(),
    kill: () => signalGroup('SIGKILL'),
  };
}

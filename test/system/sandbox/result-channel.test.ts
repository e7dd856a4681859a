/**
 * The result channel of a native run, attacked by C programs inside the wall: the supervisor
 * (PID 1) cannot be stopped, killed, read or written by the program, frames the program prints
 * are only its output, and CPU burnt by processes the program never reaps is counted. Each test
 * runs through runProgram, the program judge's own way into the wall; rules.ts turns the result
 * into the verdict.
 */
import {
  type BuildFolder,
  buildProgram,
  newBuildFolder,
  runProgram,
} from '../../../src/judging/program/build';
import { LANGUAGES } from '../../../src/judging/program/languages';
import { limitVerdict } from '../../../src/judging/program/rules';
import { sandboxRuntime } from '../../../src/judging/sandbox/sandbox-runtime';
import { C_PRELUDE } from './hostile';
import { FORGED_REPORT, forgedFrames } from './forgery';

jest.setTimeout(120_000);

const LIMITS = { timeLimitMs: 1_000, memoryMb: 64, outputBytes: 64 * 1024, stderrBytes: 4 * 1024 };
const folders: BuildFolder[] = [];

async function run(source: string, input = '') {
  const folder = await newBuildFolder();
  folders.push(folder);
  expect(await buildProgram(LANGUAGES.c, source, folder)).toMatchObject({ kind: 'built' });
  const result = await runProgram(LANGUAGES.c, folder, LIMITS, input, { followed: false });
  return {
    ...result,
    verdict: limitVerdict({ run: result, memoryMb: LIMITS.memoryMb }) ?? 'ran to completion',
  };
}

beforeAll(async () => {
  expect((await sandboxRuntime()).launcher.isolation).toBe('bwrap');
});

afterAll(async () => {
  await Promise.all(folders.map((folder) => folder.remove()));
});

test("PID 1's memory, descriptors, syscall state and status are closed to the program", async () => {
  const result = await run(`${C_PRELUDE}
int main(void) {
  char buf[256];
  try_call("mem_write", open("/proc/1/mem", O_RDWR));
  try_call("mem_read", open("/proc/1/mem", O_RDONLY));
  try_call("syscall", open("/proc/1/syscall", O_RDONLY));
  try_call("fd_dir", open("/proc/1/fd", O_RDONLY | O_DIRECTORY));
  try_call("fd_1", open("/proc/1/fd/1", O_WRONLY));
  try_call("environ", open("/proc/1/environ", O_RDONLY));
  try_call("pid", (long)getpid() - 2);
  (void)buf;
  done();
  return 0;
}
`);
  expect(result.verdict).toBe('ran to completion');
  // The program is PID 2: the supervisor is the namespace's init, and nothing else is inside.
  expect(JSON.parse(result.stdout)).toEqual({
    mem_write: 'EACCES',
    mem_read: 'EACCES',
    syscall: 'EACCES',
    fd_dir: 'EACCES',
    fd_1: 'EACCES',
    environ: 'EACCES',
    pid: 'allowed',
  });
});

test('SIGSTOP and SIGKILL sent to every other process reach nothing that reports: the run is judged as usual', async () => {
  const result = await run(`${C_PRELUDE}
int main(void) {
  for (int pid = 1; pid < 64; pid++) {
    if (pid == getpid()) continue;
    kill(pid, SIGSTOP);
    kill(pid, SIGKILL);
  }
  kill(-1, SIGSTOP);
  kill(-1, SIGKILL);
  printf("still judged\\n");
  return 0;
}
`);
  expect(result).toMatchObject({
    exit: { kind: 'exited', code: 0 },
    limit: 'none',
    stdout: 'still judged\n',
  });
});

test('frames printed on stdout are the output, never a report: a run past its limit stays time_limit_exceeded', async () => {
  const frames = [...forgedFrames('hello\n')]
    .map((byte) => `\\x${byte.toString(16).padStart(2, '0')}`)
    .join('');
  const result = await run(`${C_PRELUDE}
static const char FRAMES[] = "${frames}";
int main(void) {
  write(1, FRAMES, sizeof FRAMES - 1);
  write(2, FRAMES, sizeof FRAMES - 1);
  for (volatile unsigned long i = 0;; i++) {}
}
`);
  expect(result.verdict).toBe('time_limit_exceeded');
  // Past the CPU limit, or cut by the wall cap on a machine too busy to give it its CPU in time.
  if (result.limit === 'cpu') expect(result.cpuMs).toBeGreaterThan(LIMITS.timeLimitMs);
  else expect(result.limit).toBe('wall');
  expect(result.stdout).toContain(FORGED_REPORT);
});

test('CPU burnt by orphans the program never reaps counts: time_limit_exceeded while the program itself waits', async () => {
  // Two orphans burn CPU, each until its own CPU clock passes 700 ms, then say so; the program
  // waits without computing, prints the answer and exits. Its own CPU time is near zero.
  const result = await run(`${C_PRELUDE}
#include <time.h>
static long own_cpu_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec * 1000 + t.tv_nsec / 1000000;
}
int main(void) {
  int burnt[2];
  if (pipe(burnt) != 0) return 3;
  for (int i = 0; i < 2; i++) {
    if (fork() == 0) {
      if (fork() == 0) {
        setsid();
        while (own_cpu_ms() < 700) {}
        write(burnt[1], "x", 1);
        for (volatile unsigned long j = 0;; j++) {}
      }
      _exit(0); /* the burner is an orphan now */
    }
  }
  while (wait(NULL) > 0) {}
  char c;
  for (int i = 0; i < 2; i++) if (read(burnt[0], &c, 1) != 1) return 4;
  printf("hello\\n");
  return 0;
}
`);
  expect(result.verdict).toBe('time_limit_exceeded');
  // Stopped by the CPU limit, or, on a machine too busy to give the orphans their CPU in time,
  // by the wall cap: either way never judged on the program's own near-zero CPU time.
  if (result.limit === 'cpu') expect(result.cpuMs).toBeGreaterThan(LIMITS.timeLimitMs);
  else expect(result.limit).toBe('wall');
});

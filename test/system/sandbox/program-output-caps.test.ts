/**
 * A program's output inside the wall: stdout is the answer, so going past its cap ends the run
 * (`output` limit, what was written up to the cap kept, not a byte more); stderr is a diagnostic,
 * so going past its cap only cuts it. native-supervisor.c applies both caps while the program runs
 * and again to what is still in the pipes when it exits (one `forward` for both).
 */
import { runProgram } from '../../../src/judging/program/build';
import { LANGUAGES } from '../../../src/judging/program/languages';
import { useBuiltCProgram } from './built-program';

jest.setTimeout(120_000);

/** `<out|err|flood> <bytes>`: writes that many bytes to stdout or stderr (flood: stdout, forever), then "done". */
const WRITER = `#include <stdio.h>
#include <string.h>
#include <unistd.h>
int main(void) {
  char what[16] = {0};
  long bytes = 0;
  if (scanf("%15s %ld", what, &bytes) != 2) return 2;
  static char chunk[1024];
  memset(chunk, 'x', sizeof chunk);
  if (strcmp(what, "flood") == 0) for (;;) write(1, chunk, sizeof chunk);
  int fd = strcmp(what, "err") == 0 ? 2 : 1;
  for (long left = bytes; left > 0; left -= (long)sizeof chunk)
    write(fd, chunk, left < (long)sizeof chunk ? (size_t)left : sizeof chunk);
  write(1, "done", 4);
  return 0;
}
`;

// A CPU limit no flood reaches first, however starved the machine: the output cap must end it.
const LIMITS = { timeLimitMs: 10_000, memoryMb: 64, outputBytes: 4_096, stderrBytes: 2_048 };
const folder = useBuiltCProgram(WRITER);

const run = (input: string) => runProgram(LANGUAGES.c, folder(), LIMITS, input, { followed: false });

test('stdout within its cap is the answer, whole', async () => {
  const result = await run(`out ${LIMITS.outputBytes - 'done'.length}`);
  expect(result).toMatchObject({ limit: 'none', exit: { kind: 'exited', code: 0 } });
  expect(result.stdout).toBe('x'.repeat(LIMITS.outputBytes - 'done'.length) + 'done');
});

test('a program that never stops writing is ended by the output cap, its stdout cut at the cap', async () => {
  const result = await run('flood 0');
  expect(result.limit).toBe('output');
  expect(result.exit).toEqual({ kind: 'signaled', signal: 9 });
  expect(result.stdout).toBe('x'.repeat(LIMITS.outputBytes));
  // Ended by its output, long before the CPU limit would have.
  expect(result.cpuMs).toBeLessThan(LIMITS.timeLimitMs);
});

test('stdout one byte past its cap, written just before exiting, is still an output limit', async () => {
  const xs = LIMITS.outputBytes - 'done'.length + 1;
  const result = await run(`out ${xs}`);
  expect(result.limit).toBe('output');
  expect(result.stdout).toBe(('x'.repeat(xs) + 'done').slice(0, LIMITS.outputBytes));
});

test('stderr past its cap is cut, not a limit: the run goes on and its answer counts', async () => {
  const result = await run(`err ${LIMITS.stderrBytes * 8}`);
  expect(result).toMatchObject({ limit: 'none', exit: { kind: 'exited', code: 0 }, stdout: 'done' });
  expect(result.stderr).toBe('x'.repeat(LIMITS.stderrBytes));
});

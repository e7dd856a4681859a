/**
 * A program's tests run in sandboxes the warm pool launched ahead (issue 22's launch cost). What
 * must still hold: every test starts on a fresh /work and /dev/shm (a hidden test's input cannot
 * be written down for a later visible test to echo), and a sandbox launched ahead starts nothing,
 * and runs no clock, before its test hands it its input.
 */
import { runProgram } from '../../../src/judging/program/build';
import { LANGUAGES } from '../../../src/judging/program/languages';
import { useBuiltCProgram } from './built-program';
import { sandboxRuntime } from '../../../src/judging/sandbox/sandbox-runtime';

jest.setTimeout(120_000);

/** Prints when it started (host clock: no time namespace), then what earlier tests left, then keeps its input. */
const REMEMBERS = `#include <stdio.h>
#include <string.h>
#include <sys/time.h>
static void slurp(const char *path, char *into, size_t size) {
  FILE *f = fopen(path, "r");
  into[0] = 0;
  if (f) { if (!fgets(into, (int)size, f)) into[0] = 0; fclose(f); }
  into[strcspn(into, "\\n")] = 0;
}
static void keep(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (f) { fputs(text, f); fclose(f); }
}
int main(void) {
  struct timeval now;
  gettimeofday(&now, 0);
  long long started = (long long)now.tv_sec * 1000 + now.tv_usec / 1000;
  char input[256] = {0}, work[256], shm[256];
  if (!fgets(input, sizeof input, stdin)) input[0] = 0;
  input[strcspn(input, "\\n")] = 0;
  slurp("/work/seen", work, sizeof work);
  slurp("/dev/shm/seen", shm, sizeof shm);
  keep("/work/seen", input);
  keep("/dev/shm/seen", input);
  printf("%lld|%s|%s|%s\\n", started, input, work, shm);
  return 0;
}
`;

const LIMITS = { timeLimitMs: 1_000, memoryMb: 64, outputBytes: 4_096, stderrBytes: 4_096 };
const folder = useBuiltCProgram(REMEMBERS);

function parse(stdout: string) {
  const [started, input, work, shm] = stdout.trim().split('|');
  return { started: Number(started), input, work, shm };
}

test('every test of a program starts on a fresh /work and /dev/shm, whichever sandbox it takes', async () => {
  const secrets = ['hidden-91827364', 'visible-1', 'hidden-55443322', 'visible-2', 'last'];
  const seen: ReturnType<typeof parse>[] = [];
  for (const [index, secret] of secrets.entries()) {
    const run = await runProgram(LANGUAGES.c, folder(), LIMITS, `${secret}\n`, {
      followed: index < secrets.length - 1,
    });
    expect(run.exit).toEqual({ kind: 'exited', code: 0 });
    seen.push(parse(run.stdout));
  }
  expect(seen.map((s) => s.input)).toEqual(secrets);
  // Nothing any earlier test wrote is there for the next one.
  expect(seen.map((s) => [s.work, s.shm])).toEqual(secrets.map(() => ['', '']));
});

test('a sandbox launched ahead starts its program only when its test hands over the input', async () => {
  const { launcher } = await sandboxRuntime();
  const first = await runProgram(LANGUAGES.c, folder(), LIMITS, 'one\n', { followed: true });
  expect(first.exit).toEqual({ kind: 'exited', code: 0 });
  await launcher.warmed();
  const parked = launcher.warmCount();
  expect(parked).toBeGreaterThanOrEqual(1); // the next test's sandbox, launched while the first ran
  // The parked sandbox waits; had its program started at launch, it would have started before this.
  await new Promise((resolve) => setTimeout(resolve, 300));
  const handedOver = Date.now();
  const second = await runProgram(LANGUAGES.c, folder(), LIMITS, 'two\n', { followed: false });
  expect(launcher.warmCount()).toBe(parked - 1); // it was the parked one, and none was launched after it
  const { started, input } = parse(second.stdout);
  expect(input).toBe('two');
  expect(started).toBeGreaterThanOrEqual(handedOver);
  // Its clock started with the program, not at launch: the wait is not in its wall time.
  expect(second.wallMs).toBeLessThan(Date.now() - handedOver + 1);
});

/**
 * Verdicts come from the host: the red team's forgery (code injected into PID 1 through
 * /proc/1/mem, see forgery.ts) in all eight languages, judged by the real program judge inside
 * the wall. Each program burns CPU past its limit; whatever it writes, the verdict is
 * time_limit_exceeded and the figures are the host's.
 */
import { judgeConfigSchema } from '../../../src/judging/config';
import { runProgramJudge } from '../../../src/judging/program-judge';
import { LANGUAGE_IDS } from '../../../src/judging/program/languages';
import { sandboxRuntime } from '../../../src/judging/sandbox/sandbox-runtime';
import { forgerSource, signallerSource } from './forgery';

jest.setTimeout(300_000);

const TIME_LIMIT_MS = 1_000;
const config = judgeConfigSchema.parse({
  kind: 'program',
  time_limit_ms: TIME_LIMIT_MS,
  memory_mb: 256,
  tests: [{ name: 'echo', stdin: 'hello\n', expected_stdout: 'hello\n' }],
});
if (config.kind !== 'program') throw new Error('not a program judge');

beforeAll(async () => {
  expect((await sandboxRuntime()).launcher.isolation).toBe('bwrap');
});

describe.each(LANGUAGE_IDS)(
  '%s: a program that injects a report into PID 1 and burns past its limit',
  (language) => {
    it('is time_limit_exceeded, with the CPU time the host measured', async () => {
      const outcome = await runProgramJudge(config, {
        content: '',
        files: [forgerSource(language, 'hello\n')],
      });
      const tests = (outcome.details as { tests: { verdict: string; time_ms: number; memory_kb: number }[] })
        .tests;
      expect(outcome.score).toBe(0);
      expect(tests[0].verdict).toBe('time_limit_exceeded');
      // The host's figures, not the forged report's (cpu_ms 1, maxrss_kb 1000). Past the CPU limit,
      // or stopped by the wall cap on a machine too busy to give it its CPU time in time.
      // (Memory is not compared: a small program's cgroup peak can be 1000 KB by chance.)
      expect(tests[0].time_ms).not.toBe(1);
    });
  },
);

describe.each(LANGUAGE_IDS)(
  '%s: a program that stops and kills every other process, then answers',
  (language) => {
    it('is judged as usual: nothing that reports can be signalled', async () => {
      const outcome = await runProgramJudge(config, { content: '', files: [signallerSource(language)] });
      const tests = (outcome.details as { tests: { verdict: string }[] }).tests;
      expect({ language, verdict: tests[0].verdict, score: outcome.score }).toEqual({
        language,
        verdict: 'accepted',
        score: 100,
      });
    });
  },
);

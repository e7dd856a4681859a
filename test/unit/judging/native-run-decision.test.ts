/**
 * decideRun: the host decides a native run's figures and limits. The supervisor's report may
 * explain how the program ended; it never lowers a figure or removes a limit the host saw.
 */
import { SandboxUnavailableError } from '../../../src/judging/errors';
import { type ObservedRun, decideRun, parseReport } from '../../../src/judging/sandbox/native-run';

const FORGED = parseReport('status exited code 0 signal 0 cpu_ms 1 wall_ms 1 maxrss_kb 1000 limit none');

function observed(overrides: Partial<ObservedRun> = {}): ObservedRun {
  return {
    started: true,
    report: FORGED,
    tampered: false,
    hostKilled: undefined,
    wallMs: 40,
    cpuBaselineMs: 10,
    stdout: 'hello\n',
    stderr: '',
    launchErrors: '',
    ...overrides,
  };
}

const kernel = (cpuTimeMs: number | undefined, peakMemoryBytes?: number, oomKilled = false) => ({
  oomKilled,
  cpuTimeMs,
  peakMemoryBytes,
});

test('the figures are the cgroup’s and the host’s, whatever the report says', () => {
  const result = decideRun({ cpuMs: 1_000 }, observed({ wallMs: 730 }), kernel(610, 48 * 1024 * 1024));
  expect(result).toMatchObject({ cpuMs: 600, wallMs: 730, memoryKb: 48 * 1024, limit: 'none' });
  expect(result.exit).toEqual({ kind: 'exited', code: 0 });
});

test('a report of 1 ms with the cgroup past the limit is a CPU limit', () => {
  expect(decideRun({ cpuMs: 1_000 }, observed(), kernel(1_510))).toMatchObject({
    cpuMs: 1_500,
    limit: 'cpu',
  });
});

test('a host kill always wins: the wall cap is a wall limit, the CPU watch a CPU limit, even with a clean report', () => {
  expect(decideRun({ cpuMs: 1_000 }, observed({ hostKilled: 'wall' }), kernel(20)).limit).toBe('wall');
  expect(decideRun({ cpuMs: 1_000 }, observed({ hostKilled: 'cpu' }), kernel(20)).limit).toBe('cpu');
});

test('a limit the supervisor saw stays; a report never removes one', () => {
  const output = parseReport('status signaled code -1 signal 9 cpu_ms 3 wall_ms 3 maxrss_kb 1 limit output');
  expect(decideRun({ cpuMs: 1_000 }, observed({ report: output }), kernel(20)).limit).toBe('output');
});

test('the supervisor vanishing after the start is the program’s kill, judged, never a retry', () => {
  const result = decideRun({ cpuMs: 1_000 }, observed({ report: undefined }), kernel(50));
  expect(result).toMatchObject({ exit: { kind: 'signaled', signal: 9 }, limit: 'none' });
});

test('frames after the report (a tampered channel) never count as a clean exit', () => {
  const result = decideRun(
    { cpuMs: 1_000 },
    observed({ tampered: true, hostKilled: 'protocol' }),
    kernel(50),
  );
  expect(result.exit).toEqual({ kind: 'signaled', signal: 9 });
});

test('a sandbox that never started its program is an infrastructure failure', () => {
  expect(() =>
    decideRun({ cpuMs: 1_000 }, observed({ started: false, report: undefined }), kernel(5)),
  ).toThrow(SandboxUnavailableError);
  expect(() =>
    decideRun({ cpuMs: 1_000 }, observed({ launchError: new Error('spawn EAGAIN') }), kernel(undefined)),
  ).toThrow(/could not start/);
});

test('without a cgroup (development only) the report is all there is', () => {
  const report = parseReport(
    'status exited code 0 signal 0 cpu_ms 120 wall_ms 130 maxrss_kb 2048 limit none',
  );
  const result = decideRun(
    { cpuMs: 1_000 },
    observed({ report, cpuBaselineMs: undefined }),
    kernel(undefined),
  );
  expect(result).toMatchObject({ cpuMs: 120, memoryKb: 2048 });
});

test('a report that does not parse is no report', () => {
  expect(parseReport('status exited code 0 limit none')).toBeUndefined();
});

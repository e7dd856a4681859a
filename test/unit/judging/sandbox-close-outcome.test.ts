/**
 * closeOutcome: how a `tests` judge sandbox that closed before its last result ends, decided from
 * what the host saw (its kills, the kernel's OOM and RLIMIT_CPU verdicts, the exit).
 */
import { closeOutcome } from '../../../src/judging/sandbox/run-in-sandbox';

const seen = (overrides: Partial<Parameters<typeof closeOutcome>[0]> = {}) =>
  closeOutcome({
    killedFor: undefined,
    oomKilled: false,
    exitCode: 1,
    signal: null,
    ready: true,
    stderrTail: '',
    ...overrides,
  });

test('an abort is nobody’s verdict', () => {
  expect(seen({ killedFor: 'abort', oomKilled: true, signal: 'SIGKILL' })).toEqual({ kind: 'aborted' });
});

test('the cgroup’s OOM kill is a memory limit even when the host’s timer fired first', () => {
  expect(seen({ killedFor: 'timeout', oomKilled: true, signal: 'SIGKILL' })).toEqual({
    kind: 'settle',
    status: 'memory_limit',
  });
  expect(seen({ oomKilled: true, exitCode: 128 + 9 })).toMatchObject({ status: 'memory_limit' });
});

test('the host’s time kill and RLIMIT_CPU are timeouts', () => {
  expect(seen({ killedFor: 'timeout', signal: 'SIGKILL' })).toMatchObject({ status: 'timeout' });
  expect(seen({ signal: 'SIGXCPU' })).toMatchObject({ status: 'timeout' });
  expect(seen({ exitCode: 128 + 24 })).toMatchObject({ status: 'timeout' });
});

test('V8’s own out-of-memory words are a memory limit', () => {
  expect(seen({ stderrTail: 'FATAL ERROR: Reached heap limit Allocation failed' })).toMatchObject({
    status: 'memory_limit',
  });
});

test('a process that never became ready is the wall’s failure, not the submission’s', () => {
  expect(seen({ ready: false, killedFor: 'startup', signal: 'SIGKILL' })).toEqual({
    kind: 'unavailable',
    why: 'did not start in time',
  });
  expect(seen({ ready: false, exitCode: 3 })).toEqual({
    kind: 'unavailable',
    why: 'exited during startup (3)',
  });
});

test('anything else after the start is a crash of the submission', () => {
  expect(seen({ exitCode: 7 })).toEqual({
    kind: 'crashed',
    reason: 'exited unexpectedly (exit code 7) without reporting a result',
  });
});

import {
  attemptOutcomeKey,
  attemptVerdict,
  mayChangeHealth,
  RECENT_FAILURE_WINDOW_MS,
  STORED_EXCERPT_CHARS,
  storedExcerpt,
} from '../../../../src/domain/webhooks/rules';
import { REPLACED_NOTE } from '../../../../src/lib/storable-text';

describe("storedExcerpt: a receiver's answer as an attempt keeps it", () => {
  test('replaced bytes are said at the end, even past the cut', () => {
    const long = `\uFFFD${'x'.repeat(3000)}`;
    const stored = storedExcerpt(long, true)!;
    expect(stored.startsWith(`\uFFFD${'x'.repeat(STORED_EXCERPT_CHARS - 1)}\n`)).toBe(true);
    expect(stored.endsWith(REPLACED_NOTE)).toBe(true);
    expect(storedExcerpt('ok', false)).toBe('ok');
  });

  test('the cut never leaves half a surrogate pair; nothing is null', () => {
    const stored = storedExcerpt(`${'x'.repeat(STORED_EXCERPT_CHARS - 1)}😀 tail`, false)!;
    expect(stored).toBe('x'.repeat(STORED_EXCERPT_CHARS - 1));
    expect(storedExcerpt('', false)).toBeNull();
    expect(storedExcerpt(null, false)).toBeNull();
  });
});

describe('attemptVerdict: what an attempt outcome means', () => {
  const second = { attemptNumber: 2, totalAttempts: 4 };
  const last = { attemptNumber: 4, totalAttempts: 4 };

  test('a 2xx delivers, whatever the attempt', () => {
    expect(attemptVerdict(second, true, false)).toEqual({
      final: true,
      deliveryStatus: 'delivered',
      disableSubscription: null,
    });
    expect(attemptVerdict(last, true, false)).toEqual({
      final: true,
      deliveryStatus: 'delivered',
      disableSubscription: null,
    });
  });

  test('a failure with attempts left retries; the last one dead-letters; neither disables', () => {
    expect(attemptVerdict(second, false, false)).toEqual({
      final: false,
      deliveryStatus: 'retrying',
      disableSubscription: null,
    });
    expect(attemptVerdict(last, false, false)).toEqual({
      final: true,
      deliveryStatus: 'dead_letter',
      disableSubscription: null,
    });
  });

  test('410 Gone dead-letters at once and disables the subscription, even with attempts left', () => {
    const verdict = attemptVerdict({ attemptNumber: 1, totalAttempts: 4 }, false, true);
    expect(verdict).toMatchObject({ final: true, deliveryStatus: 'dead_letter' });
    expect(verdict.disableSubscription).toMatch(/410/);
  });
});

describe('mayChangeHealth: when the health workflow must hear of an attempt', () => {
  const now = new Date('2026-11-23T12:00:00Z');
  const healthy = { failure_count: 0, last_failure_at: null };

  test('failures always; a success on a healthy subscription never', () => {
    expect(mayChangeHealth(false, healthy, now)).toBe(true);
    expect(mayChangeHealth(true, healthy, now)).toBe(false);
  });

  test('a success while a count is open, or shortly after a failure whose count may not be persisted yet', () => {
    expect(mayChangeHealth(true, { failure_count: 3, last_failure_at: null }, now)).toBe(true);
    const recent = new Date(now.getTime() - RECENT_FAILURE_WINDOW_MS + 1);
    const old = new Date(now.getTime() - RECENT_FAILURE_WINDOW_MS);
    expect(mayChangeHealth(true, { failure_count: 0, last_failure_at: recent }, now)).toBe(true);
    expect(mayChangeHealth(true, { failure_count: 0, last_failure_at: old }, now)).toBe(false);
  });
});

test('attemptOutcomeKey names one attempt of one series', () => {
  expect(attemptOutcomeKey({ deliveryId: 'd', series: 1, attemptNumber: 3 })).toBe('d:1:3');
});

import { parseRetryDelays } from '../../../../src/config';
import {
  DEFAULT_RETRY_DELAYS_MS,
  delayBeforeAttempt,
  DISABLE_AFTER_CONSECUTIVE_FAILURES,
  shouldDisableSubscription,
  totalAttempts,
} from '../../../../src/domain/webhooks/contract';

describe('retry schedule', () => {
  it('is 4 attempts: at once, then +1 s, +5 s, +30 s', () => {
    expect(DEFAULT_RETRY_DELAYS_MS).toEqual([1000, 5000, 30000]);
    expect(Object.isFrozen(DEFAULT_RETRY_DELAYS_MS)).toBe(true);
    expect(totalAttempts()).toBe(4);
    expect([1, 2, 3, 4, 5].map((n) => delayBeforeAttempt(n))).toEqual([0, 1000, 5000, 30000, null]);
    expect(() => delayBeforeAttempt(0)).toThrow(RangeError);
  });

  it('disables a subscription at 10 consecutive failures', () => {
    expect(DISABLE_AFTER_CONSECUTIVE_FAILURES).toBe(10);
    expect(shouldDisableSubscription(9)).toBe(false);
    expect(shouldDisableSubscription(10)).toBe(true);
  });

  it('parses a configured schedule', () => {
    expect(parseRetryDelays('1000,5000,30000')).toEqual([1000, 5000, 30000]);
    expect(parseRetryDelays(' 50 , 0,50 ')).toEqual([50, 0, 50]);
    expect(parseRetryDelays('7')).toEqual([7]);
    expect(totalAttempts(parseRetryDelays('10,10'))).toBe(3);
  });

  it.each(['', '  ', '1000,,5000', '1000,', 'abc', '-1', '1.5', '1e3', '0x10', String(25 * 3600 * 1000)])(
    'refuses %j',
    (csv) => {
      expect(() => parseRetryDelays(csv)).toThrow(RangeError);
    },
  );

  it('refuses more than 20 retries', () => {
    expect(() => parseRetryDelays(Array(21).fill('1').join(','))).toThrow(/at most 20/);
  });
});

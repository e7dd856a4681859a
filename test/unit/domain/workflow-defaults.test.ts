/**
 * The waits and run lengths the workflows take from their input (so that test/workflows/*.test.ts
 * runs them in milliseconds) keep today's production values when the input leaves them out.
 */
import {
  RELAY_BATCH_WINDOW_MS,
  RELAY_HOLD_MS,
  RELAY_IDLE_TIMEOUT_MS,
  RELAY_MAX_ITERATIONS,
  RELAY_TIMER_LEAD_MS,
} from '../../../src/domain/connector/contract';
import { loadConfig } from '../../../src/config';
import { MATCHMAKER_ROUNDS_PER_RUN } from '../../../src/domain/matches/contract';
import {
  ATTEMPT_TIMEOUT_MS,
  DEFAULT_RETRY_DELAYS_MS,
  HEALTH_IDLE_TIMEOUT_MS,
} from '../../../src/domain/webhooks/contract';

test('webhooks: the spec series, 10 s per attempt, a health run idle for 24 h ends', () => {
  expect(DEFAULT_RETRY_DELAYS_MS).toEqual([1000, 5000, 30000]);
  expect(ATTEMPT_TIMEOUT_MS).toBe(10_000);
  expect(HEALTH_IDLE_TIMEOUT_MS).toBe(24 * 60 * 60 * 1000);
});

test('spectator relay: idle 10 min, 500 steps per run, 100 ms grain; the hold covers the timer lead', () => {
  expect(RELAY_IDLE_TIMEOUT_MS).toBe(10 * 60_000);
  expect(RELAY_MAX_ITERATIONS).toBe(500);
  expect(RELAY_BATCH_WINDOW_MS).toBe(100);
  // A timer wakes RELAY_TIMER_LEAD_MS early and the step's hold waits the rest: the hold must cover it.
  expect(RELAY_HOLD_MS).toBeGreaterThanOrEqual(RELAY_TIMER_LEAD_MS);
});

test('spectator relay: the configured hold and timer lead default to the constants; a lead past the hold is refused', () => {
  const config = loadConfig({ NODE_ENV: 'test' });
  expect(config.SPECTATOR_RELAY_HOLD_MS).toBe(RELAY_HOLD_MS);
  expect(config.SPECTATOR_RELAY_TIMER_LEAD_MS).toBe(RELAY_TIMER_LEAD_MS);
  expect(() =>
    loadConfig({ NODE_ENV: 'test', SPECTATOR_RELAY_HOLD_MS: '300', SPECTATOR_RELAY_TIMER_LEAD_MS: '500' }),
  ).toThrow(/SPECTATOR_RELAY_TIMER_LEAD_MS/);
});

test('matchmaker: 50 rounds per run', () => {
  expect(MATCHMAKER_ROUNDS_PER_RUN).toBe(50);
});

test('spectator delay: 30 s unless configured (the relay and the pages take it from the configuration)', () => {
  expect(loadConfig({ NODE_ENV: 'test' }).SPECTATOR_DELAY_MS).toBe(30_000);
  expect(loadConfig({ NODE_ENV: 'test', SPECTATOR_DELAY_MS: '1500' }).SPECTATOR_DELAY_MS).toBe(1_500);
});

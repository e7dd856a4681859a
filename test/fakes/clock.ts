/** A clock a test moves by hand (ServiceDeps.clock): time passes only when the test says so. */
import type { Clock } from '../../src/service-deps';

export class FakeClock implements Clock {
  private ms: number;
  constructor(start: Date | string = '2026-01-01T00:00:00Z') {
    this.ms = new Date(start).getTime();
  }
  now(): Date {
    return new Date(this.ms);
  }
  advance(ms: number): this {
    this.ms += ms;
    return this;
  }
  set(to: Date | string): this {
    this.ms = new Date(to).getTime();
    return this;
  }
}

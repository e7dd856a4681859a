/** Webhook delivery primitives: signing, secrets at rest, SSRF guard, one attempt, schedule, event bodies. */
export * from './signatures';
export * from './secret-box';
export * from './ssrf';
export * from './attempt';
export * from './schedule';
export * from './events';

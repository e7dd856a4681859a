/** Webhook delivery primitives: signing, secrets at rest, SSRF guard, one attempt, event bodies (the schedule is the delivery workflow's contract: src/domain/webhooks/contract.ts). */
export * from './signatures';
export * from './secret-box';
export * from './ssrf';
export * from './attempt';
export * from './events';

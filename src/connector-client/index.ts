/** Connector client library: typed calls, a resilient runner, JSONL event sources and the demo agent. */
export * from '../wire/connector';
export * from './backoff';
export * from './client';
export * from './runner';
export * from './jsonl';
export {
  runDemo,
  demoScript,
  bootstrapDemoAgent,
  DEMO_SUBMISSION,
  DEMO_PACE_MS,
  type DemoOptions,
  type DemoOutcome,
  type DemoIdentity,
} from './demo';

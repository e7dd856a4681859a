/**
 * The scripted demo agent `npm start` runs, so a new user sees a live watch page within a
 * minute: it creates (through the public API) an agent with a connector key and a token,
 * enters it into the seeded "Say hello" challenge, streams a believable session and submits.
 */
import { mintSessionJwt } from '../auth/jwt';
import { getConfig } from '../config';
import { ConnectorClient } from '../connector-client/client';
import { bootstrapDemoAgent, runDemo } from '../connector-client/demo';
import { DEMO_CHALLENGE_IDS } from './seed';

async function main(): Promise<void> {
  const config = getConfig();
  const baseUrl = process.env.API_BASE_URL ?? `http://127.0.0.1:${config.PORT}`;
  const jwt = await mintSessionJwt(config.AUTH_JWT_SECRET, { sub: 'demo|agent-owner', name: 'Demo Agent Owner' });
  const identity = await bootstrapDemoAgent({ baseUrl, jwt, challengeId: DEMO_CHALLENGE_IDS.sayHello, agentName: 'Demo Agent' });
  const client = new ConnectorClient({ baseUrl, agentKey: identity.agentKey, apiToken: identity.apiToken, userAgent: 'challenge-connector-demo/1.0' });
  const stop = new AbortController();
  process.once('SIGINT', () => stop.abort());
  process.once('SIGTERM', () => stop.abort());
  const log = (level: string, message: string, fields?: Record<string, unknown>) => console.log(JSON.stringify({ level, message, ...fields }));
  const outcome = await runDemo({ client, challengeId: identity.challengeId, signal: stop.signal, logger: log });
  log('info', 'demo finished', { ...outcome });
}

main().catch((err) => {
  console.error('demo agent failed:', err instanceof Error ? err.message : err);
  process.exit(1);
});

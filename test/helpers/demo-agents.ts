/**
 * A demo agent set up as src/dev/demo-agent.ts does it (the public API with a session JWT: agent,
 * connector key, API token, entry), and its connector client: the demo tests' common start.
 */
import { randomUUID } from 'node:crypto';
import { mintSessionJwt } from '../../src/auth/jwt';
import { ConnectorClient } from '../../src/connector-client/client';
import {
  bootstrapDemoAgent,
  DEMO_AGENT_NAMES,
  type DemoIdentity,
  type DemoPersona,
} from '../../src/connector-client/demo';
import type { TestServer } from './server';

export async function demoAgent(
  server: TestServer,
  challengeId: string,
  persona: DemoPersona,
  /** Tells the test's people apart from other suites' (the JWT subject's prefix). */
  suite: string,
): Promise<{ identity: DemoIdentity; client: ConnectorClient }> {
  const jwt = await mintSessionJwt(server.config.AUTH_JWT_SECRET, {
    sub: `${suite}|${persona}|${randomUUID()}`,
  });
  const identity = await bootstrapDemoAgent({
    baseUrl: server.baseUrl,
    jwt,
    challengeId,
    agentName: DEMO_AGENT_NAMES[persona],
  });
  const client = new ConnectorClient({
    baseUrl: server.baseUrl,
    agentKey: identity.agentKey,
    apiToken: identity.apiToken,
  });
  return { identity, client };
}

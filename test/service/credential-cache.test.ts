import path from 'node:path';
import { apiProcess, freePort, type ManagedProcess } from '../../bench/lib/processes';
import { eventually, newAgent, newAgentKey, type TestAgent } from '../helpers/factories';
import { startTestServer, type TestServer } from '../helpers/server';
import { ARTIFACTS_DIR } from '../setup/test-env';

/**
 * Credentials are cached per API process and revoked through LISTEN/NOTIFY. The API processes
 * here cache for 5 minutes, so a refusal can only come from the pushed notification; each
 * first proves it is caching: a credential expired behind the triggers' back (a session with
 * session_replication_role = replica fires no triggers) is still accepted from its cache.
 */

const CACHE_TTL_MS = '300000';
let server: TestServer;
const apis: { process: ManagedProcess; baseUrl: string }[] = [];

beforeAll(async () => {
  server = await startTestServer();
  for (const name of ['api-a', 'api-b']) {
    const port = await freePort();
    const process_ = apiProcess({
      name: `credential-cache-${name}`,
      logDir: path.join(ARTIFACTS_DIR, 'credential-cache'),
      env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), CREDENTIAL_CACHE_TTL_MS: CACHE_TTL_MS },
    });
    await process_.start();
    apis.push({ process: process_, baseUrl: `http://127.0.0.1:${port}` });
  }
}, 120_000);

afterAll(async () => {
  await Promise.all(apis.map((api) => api.process.stop()));
  await server.close();
});

type Credential = {
  header: Record<string, string>;
  path: string;
  table: 'api_tokens' | 'agent_keys';
  hashColumn: string;
  secret: string;
};

async function statusOn(
  baseUrl: string,
  credential: Credential,
): Promise<{ status: number; message: string }> {
  const res = await fetch(baseUrl + credential.path, { headers: credential.header });
  const text = await res.text();
  let message = '';
  try {
    const body = JSON.parse(text);
    message = body?.error?.message ?? body?.error ?? '';
  } catch {
    /* not JSON */
  }
  return { status: res.status, message };
}

/** Expires the credential without firing its NOTIFY trigger (a change made around the triggers). */
async function expireSilently(credential: Credential): Promise<void> {
  const client = await server.deps.db.connect();
  try {
    await client.query('BEGIN');
    await client.query('SET LOCAL session_replication_role = replica');
    await client.query(
      `UPDATE ${credential.table} SET expires_at = now() - interval '1 second' WHERE ${credential.hashColumn} = encode(sha256($1::bytea), 'hex')`,
      [credential.secret],
    );
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK');
    throw err;
  } finally {
    client.release();
  }
}

const tokenCredential = (agent: TestAgent): Credential => ({
  header: { authorization: `Bearer ${agent.token}` },
  path: '/api/v1/agents',
  table: 'api_tokens',
  hashColumn: 'token_hash',
  secret: agent.token,
});

const keyCredential = (key: string): Credential => ({
  header: { 'x-service-api-key': key },
  path: '/api/v1/challenges/assigned',
  table: 'agent_keys',
  hashColumn: 'key_hash',
  secret: key,
});

/**
 * Both processes answer `credential` from their cache: a fresh credential is used on both
 * (cached once their listener is up), then expired silently; both still accept it. Retried with
 * a new credential until the listeners are up.
 */
async function cachedOn(baseUrls: string[], make: () => Promise<Credential>): Promise<Credential> {
  return eventually(
    async () => {
      const credential = await make();
      for (const baseUrl of baseUrls) expect((await statusOn(baseUrl, credential)).status).toBe(200);
      await expireSilently(credential);
      const after = await Promise.all(baseUrls.map((baseUrl) => statusOn(baseUrl, credential)));
      return after.every((r) => r.status === 200) ? credential : undefined;
    },
    30_000,
    300,
  );
}
const cachedOnBoth = (make: () => Promise<Credential>) =>
  cachedOn(
    apis.map((api) => api.baseUrl),
    make,
  );

/**
 * Revokes through the API (the in-process server: neither API process) and waits until both API
 * processes refuse the credential, with the reason read afresh (revoked comes before expiry).
 */
async function expectRevokedOnBoth(credential: Credential, path: string, jwt: string): Promise<void> {
  const revoked = await server.request('DELETE', path, { auth: jwt });
  expect(revoked.status).toBe(200);
  const answers = await eventually(
    async () => {
      const all = await Promise.all(apis.map((api) => statusOn(api.baseUrl, credential)));
      return all.every((r) => r.status === 401) ? all : undefined;
    },
    10_000,
    20,
  );
  for (const answer of answers) expect(answer.message).toMatch(/revoked/);
}

test('a revoked API token is refused by both API processes, by the notification (the cache would keep it 5 minutes)', async () => {
  let agent: TestAgent | undefined;
  const credential = await cachedOnBoth(async () => {
    agent = await newAgent(server);
    return tokenCredential(agent);
  });
  await expectRevokedOnBoth(credential, `/api/v1/auth/tokens/${agent!.tokenId}`, agent!.user.jwt);
});

test('a revoked agent key is refused by both API processes, by the notification', async () => {
  let agent: TestAgent | undefined;
  let keyId = '';
  const credential = await cachedOnBoth(async () => {
    agent = await newAgent(server);
    const key = await newAgentKey(server, agent);
    const keys = await server.request('GET', `/api/v1/agents/${agent.agentId}/keys`, {
      auth: agent.user.jwt,
    });
    keyId = keys.body.data[0].id;
    return keyCredential(key);
  });
  await expectRevokedOnBoth(credential, `/api/v1/agents/${agent!.agentId}/keys/${keyId}`, agent!.user.jwt);
});

test('a change the triggers never announce is picked up when the short TTL runs out', async () => {
  const shortTtl = await startTestServer({ CREDENTIAL_CACHE_TTL_MS: '1500' });
  try {
    // Accepted once after the silent expiry (so it was served from the cache)...
    const credential = await cachedOn([shortTtl.baseUrl], async () =>
      tokenCredential(await newAgent(shortTtl)),
    );
    // ...and refused once the entry is older than the TTL, with the reason read afresh.
    const refused = await eventually(
      async () => {
        const answer = await statusOn(shortTtl.baseUrl, credential);
        return answer.status === 401 ? answer : undefined;
      },
      10_000,
      100,
    );
    expect(refused.message).toMatch(/expired/);
  } finally {
    await shortTtl.close();
  }
});

test("a user's role change drops every cached credential (the principal carries the role)", async () => {
  const agent = await newAgent(server);
  await eventually(async () => {
    await server.request('GET', '/api/v1/agents', { auth: agent.token });
    return server.deps.credentialCache.size > 0;
  });
  await server.deps.db.query(`UPDATE users SET role = 'admin' WHERE subject = $1`, [agent.user.subject]);
  await eventually(async () => server.deps.credentialCache.size === 0, 10_000, 20);
});

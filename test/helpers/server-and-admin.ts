import type { Config } from '../../src/config';
import { newAdmin, type TestUser } from './factories';
import { startTestServer, type TestServer, type TestServerOptions } from './server';

/**
 * The setup most API test files share: a test server (with these config overrides) and an
 * operator on it. Use it from beforeAll and close the server in afterAll:
 *
 *   beforeAll(async () => ({ server, admin } = await startServerAndAdmin({ RATE_LIMIT_DISABLED: '1' })));
 *   afterAll(() => server?.close());
 */
export async function startServerAndAdmin(
  overrides: Partial<Record<keyof Config, string>> = {},
  options: TestServerOptions = {},
): Promise<{ server: TestServer; admin: TestUser }> {
  const server = await startTestServer(overrides, options);
  try {
    return { server, admin: await newAdmin(server) };
  } catch (err) {
    await server.close();
    throw err;
  }
}

import { randomUUID } from 'node:crypto';
import { startTestServer, type TestServer } from '../helpers/server';

describe('arena pages', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server.close();
  });

  it('answers 404 for unknown matches and agents, the page and the stream alike', async () => {
    const id = randomUUID();
    const page = await fetch(`${server.baseUrl}/matches/${id}`);
    expect(page.status).toBe(404);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect((await fetch(`${server.baseUrl}/agents/${id}`)).status).toBe(404);
    expect((await fetch(`${server.baseUrl}/api/v1/matches/${id}/live`)).status).toBe(404);
  });

  it('renders an empty ladder of a weight class', async () => {
    const res = await fetch(`${server.baseUrl}/weight-classes/open/ladder`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('No rated agents yet');
  });
});

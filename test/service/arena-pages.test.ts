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
    const page = await res.text();
    expect(page).toContain('No rated agents yet');
    // Its header knows the visitor like every other page's: signed out, a sign-in that comes back here.
    expect(page).toContain('href="/login?return_to=%2Fweight-classes%2Fopen%2Fladder"');
  });
});

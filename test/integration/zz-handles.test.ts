import { startTestServer } from '../helpers/server';
test('handles', async () => {
  const s = await startTestServer();
  await s.request('GET', '/readyz');
  await s.close();
  await new Promise((r) => setTimeout(r, 500));
  console.log((process as any)._getActiveHandles().map((h: any) => h.constructor.name + ' ' + (h._host ?? h.remoteAddress ?? '')));
});

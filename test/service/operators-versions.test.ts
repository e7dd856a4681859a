/**
 * Version check on challenge edits (DESIGN, "Fourth-round extensions" → "Operators"): the admin
 * read answers `version` and `ETag: "<version>"`, every change (edit, transition) bumps it, and a
 * PATCH made from an older version is refused with 412 and changes nothing. Real HTTP and stack.
 */
import { randomUUID } from 'node:crypto';
import { formValuesOf } from '../../src/api/pages/challenges/form';
import { updateChallenge } from '../../src/db/queries/challenges';
import { createDraft, transition } from '../helpers/challenge-factories';
import { type TestUser } from '../helpers/factories';
import { expectError, type TestServer } from '../helpers/server';
import { startServerAndAdmin } from '../helpers/server-and-admin';
import { csrfFrom, signInThroughEmbeddedProvider, webClient, type WebClient } from '../helpers/web-session';

const OPERATOR = `ops|versions-${randomUUID().slice(0, 8)}`;
let server: TestServer;
let admin: TestUser;
beforeAll(
  async () =>
    ({ server, admin } = await startServerAndAdmin({
      RATE_LIMIT_DISABLED: '1',
      AUTH_OPERATOR_SUBJECTS: OPERATOR,
    })),
);
afterAll(() => server.close());

const read = (id: string) => server.request('GET', `/api/v1/admin/challenges/${id}`, { auth: admin.jwt });
const patch = (id: string, body: unknown, ifMatch?: string) =>
  server.request('PATCH', `/api/v1/admin/challenges/${id}`, {
    auth: admin.jwt,
    body,
    headers: ifMatch === undefined ? {} : { 'If-Match': ifMatch },
  });
const auditCount = async (id: string) =>
  (await server.request('GET', `/api/v1/admin/audit?target_id=${id}&limit=100`, { auth: admin.jwt })).body
    .data.length as number;

describe('challenge versions', () => {
  test('GET answers version and the ETag; every change bumps it, transitions included', async () => {
    const draft = await createDraft(server, {}, admin);
    const first = await read(draft.id);
    expect(first.status).toBe(200);
    const v1 = first.body.data.version as number;
    expect(Number.isInteger(v1)).toBe(true);
    expect(first.headers.get('etag')).toBe(`"${v1}"`);

    const edited = await patch(draft.id, { title: 'Edited once' }, `"${v1}"`);
    expect(edited.status).toBe(200);
    expect(edited.body.data.version).toBe(v1 + 1);
    expect(edited.headers.get('etag')).toBe(`"${v1 + 1}"`);

    const published = await transition(server, draft.id, 'publish', undefined, admin);
    expect(published.version).toBeGreaterThan(v1 + 1);
    const retired = await transition(server, draft.id, 'retire', undefined, admin);
    expect(retired.version).toBeGreaterThan(published.version);
    // An idempotent repeat changes nothing, so the version stays.
    const again = await transition(server, draft.id, 'retire', undefined, admin);
    expect(again.version).toBe(retired.version);
    expect((await read(draft.id)).headers.get('etag')).toBe(`"${retired.version}"`);
  });

  test('a stale If-Match is 412 and changes nothing (no field, no version, no audit record)', async () => {
    const draft = await createDraft(server, {}, admin);
    const v = (await read(draft.id)).body.data.version as number;
    // Tab A saves first.
    expect((await patch(draft.id, { title: 'Tab A' }, `"${v}"`)).status).toBe(200);
    const recordsBefore = await auditCount(draft.id);
    // Tab B still holds version v.
    const stale = await patch(draft.id, { title: 'Tab B', description: 'from B' }, `"${v}"`);
    expectError(stale, 412, 'PRECONDITION_FAILED', new RegExp(`version ${v + 1}.*version ${v}`));
    const now = (await read(draft.id)).body.data;
    expect(now).toMatchObject({ title: 'Tab A', description: draft.description, version: v + 1 });
    expect(await auditCount(draft.id)).toBe(recordsBefore);

    // Weak tags, lists and `*` are understood; a header naming no version is a 400.
    expect((await patch(draft.id, { title: 'weak' }, `W/"${v + 1}"`)).status).toBe(200);
    expect((await patch(draft.id, { title: 'list' }, `"1", "${v + 2}"`)).status).toBe(200);
    expect((await patch(draft.id, { title: 'star' }, '*')).status).toBe(200);
    expectError(await patch(draft.id, { title: 'junk' }, 'junk'), 400, 'VALIDATION_ERROR', /If-Match/);
  });

  test('without If-Match the edit applies as before', async () => {
    const draft = await createDraft(server, {}, admin);
    await patch(draft.id, { title: 'one' });
    const res = await patch(draft.id, { title: 'two' });
    expect(res.status).toBe(200);
    expect(res.body.data.title).toBe('two');
  });

  test('the OpenAPI document declares the 412 (and the 404s and 409 of the new routes)', async () => {
    const doc = (await server.request('GET', '/api/v1/openapi.json')).body;
    expect(Object.keys(doc.paths['/api/v1/admin/challenges/{id}'].patch.responses)).toContain('412');
    // The replay of a selection answers 404 for an unknown delivery: declared too (issue 29's attack findings).
    expect(Object.keys(doc.paths['/api/v1/admin/webhooks/deliveries/replay'].post.responses)).toContain(
      '404',
    );
    expect(Object.keys(doc.paths['/api/v1/admin/challenges/{id}/rejudge'].post.responses)).toEqual(
      expect.arrayContaining(['202', '404', '409']),
    );
  });
});

describe("the console's edit form and the version", () => {
  let operator: WebClient;
  beforeAll(async () => {
    operator = webClient(server.baseUrl);
    await signInThroughEmbeddedProvider(operator, OPERATOR, '/admin');
  });

  /** The edit form as an operator opens it: its hidden version, base and CSRF token. */
  async function openForm(id: string) {
    const res = await operator.fetch(`/admin/challenges/${id}`);
    expect(res.status).toBe(200);
    const page = await res.text();
    const hidden = (name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(page)?.[1];
    return { csrf: csrfFrom(page), version: hidden('version'), base: hidden('base') };
  }
  /** Posts every field as stored when the form was opened, with `changes` typed over them. */
  const save = (id: string, opened: Awaited<ReturnType<typeof openForm>>, shown: object, changes: object) =>
    operator.fetch(`/admin/challenges/${id}`, {
      method: 'POST',
      form: {
        ...formValuesOf(shown),
        ...changes,
        _csrf: opened.csrf,
        version: opened.version ?? '',
        base: opened.base ?? '',
      },
    });

  test("the lifecycle's bookkeeping after the form was opened does not refuse the save", async () => {
    const draft = await createDraft(server, {}, admin);
    const shown = (await read(draft.id)).body.data;
    const opened = await openForm(draft.id);
    expect(opened.version).toBe(String(shown.version));
    // What the lifecycle writes seconds after publishing: the start it announced (no field of the form).
    await updateChallenge(server.deps.db, draft.id, { started_event_at: new Date() });
    expect((await read(draft.id)).body.data.version).toBe(shown.version + 1);

    const res = await save(draft.id, opened, shown, { title: 'Saved after the bookkeeping' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/admin/challenges/${draft.id}?done=saved`);
    expect((await read(draft.id)).body.data).toMatchObject({
      title: 'Saved after the bookkeeping',
      version: shown.version + 2,
    });
  });

  test('a field someone else changed after the form was opened is still a conflict, and nothing is saved', async () => {
    const draft = await createDraft(server, {}, admin);
    const shown = (await read(draft.id)).body.data;
    const opened = await openForm(draft.id);
    expect((await patch(draft.id, { description: 'Theirs' }, `"${shown.version}"`)).status).toBe(200);

    const res = await save(draft.id, opened, shown, { title: 'Mine' });
    expect(res.status).toBe(409);
    expect(await res.text()).toContain('id="edit-conflict"');
    expect((await read(draft.id)).body.data).toMatchObject({
      title: shown.title,
      description: 'Theirs',
      version: shown.version + 1,
    });
    // A forged base (the form's digest of other values) does not pass either.
    const forged = await save(draft.id, { ...opened, base: 'x'.repeat(32) }, shown, { title: 'Mine' });
    expect(forged.status).toBe(409);
  });
});

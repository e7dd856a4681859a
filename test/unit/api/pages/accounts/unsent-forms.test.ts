/**
 * /unsent for every kept form (issue 41, item 8): every form a signed-out post can be kept for has
 * its entry (as itself or a summary in its own words), and a kept form nobody described is never
 * shown by its internal field names. The pages themselves: test/system/sign-out-unsent-browser.test.ts.
 */
import { allRoutes } from '../../../../../src/api/routes';
import { UNSENT_FORMS, unsentFormEntryFor } from '../../../../../src/api/pages/accounts/unsent-forms';
import { renderUnsentFormPage } from '../../../../../src/api/pages/accounts/sign-in-view';

/** The routes whose signed-out posts are kept (pipeline.ts: a webSession form without `whenSignedOut`). */
const KEPT = allRoutes()
  .filter((r) => r.auth === 'webSession' && r.method !== 'get' && !r.whenSignedOut)
  .map((r) => r.path);

test('every form that is kept through a sign-in has its /unsent entry, and no entry is stale', () => {
  expect(KEPT.length).toBeGreaterThan(30);
  expect(UNSENT_FORMS.map((e) => e.path).sort()).toEqual([...new Set(KEPT)].sort());
});

test('a kept action finds its entry with its path parameters', () => {
  const id = '0b6f9a2e-3c1d-4e5f-8a9b-0c1d2e3f4a5b';
  const key = '1b6f9a2e-3c1d-4e5f-8a9b-0c1d2e3f4a5b';
  expect(unsentFormEntryFor(`/me/agents/${id}/keys/${key}/revoke`)).toMatchObject({
    entry: { path: '/me/agents/:id/keys/:keyId/revoke' },
    params: { id, keyId: key },
  });
  expect(unsentFormEntryFor('/admin/challenges/new/dry-run')?.entry.path).toBe(
    '/admin/challenges/new/dry-run',
  );
  expect(unsentFormEntryFor(`/admin/challenges/${id}`)?.params).toEqual({ id });
  expect(unsentFormEntryFor('/nowhere')).toBeNull();
});

const STASH = {
  action: '/me/agents/x',
  page: '/me/agents',
  fields: [
    ['agent_id', 'typed-agent'],
    ['expires_in_hours', '12'],
  ] as [string, string][],
  had_files: false,
  created_at: new Date('2026-01-01T00:00:00Z'),
};
const ACCOUNT = { signedIn: { name: 'Ada', csrfToken: 'tok' } };

test('a summary names each field by the form’s label and sends the rest unchanged', () => {
  const page = renderUnsentFormPage({
    stash: STASH,
    described: {
      title: 'A new connector key',
      submit: 'New connector key',
      facts: [{ label: 'Agent', value: 'Ada bot' }],
      fields: [{ name: 'expires_in_hours', label: 'Valid for (hours)', kind: 'number', values: ['12'] }],
      hidden: [['agent_id', 'typed-agent']],
    },
    csrfToken: 'tok',
    account: ACCOUNT,
  }).html.toString();
  expect(page).toContain('>Valid for (hours)<input');
  expect(page).toContain('value="12"');
  expect(page).toContain('<input type="hidden" name="agent_id" value="typed-agent">');
  expect(page).toContain('>New connector key</button>');
  expect(page).not.toMatch(/>\s*(agent_id|expires_in_hours)\s*</);
});

test('a kept form without a description leads back to its page, without its field names', () => {
  const page = renderUnsentFormPage({ stash: STASH, csrfToken: 'tok', account: ACCOUNT }).html.toString();
  expect(page).toContain('Your form was not sent');
  expect(page).toContain('href="/me/agents"');
  expect(page).not.toContain('agent_id');
  expect(page).not.toContain('expires_in_hours');
  expect(page).not.toContain('typed-agent');
});

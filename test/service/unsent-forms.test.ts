/**
 * /unsent for every kept form, on the real database (issue 41, item 8; the route table's unit test
 * keeps every form listed, the browser journey walks seven of them): whatever was typed and
 * whether or not what the form was for still exists, each entry answers a page (the form itself,
 * a summary in its own words, or the page leading back), always a 200 page, never an error, and never shows a
 * field's internal name as a label. A person's entries describe only what is theirs; the console's
 * are described to operators only.
 */
import { randomUUID } from 'node:crypto';
import type { HandlerResult } from '../../src/api/route';
import type { Principal } from '../../src/auth/principal';
import { restoreUnsentForm, UNSENT_FORMS } from '../../src/api/pages/accounts/unsent-forms';
import { startWebSession, type WebSession } from '../../src/domain/accounts/web-sessions';
import { newAgent, newAgentKey, type TestAgent, type TestUser } from '../helpers/factories';
import { startServerAndAdmin } from '../helpers/server-and-admin';
import type { TestServer } from '../helpers/server';
import { newChallenge } from '../helpers/submission-factories';

let server: TestServer;
let admin: TestUser;
let agent: TestAgent;
let keyId: string;
let challengeId: string;

beforeAll(async () => {
  ({ server, admin } = await startServerAndAdmin({ RATE_LIMIT_DISABLED: '1' }));
  agent = await newAgent(server, { name: `Typist's agent ${randomUUID().slice(0, 6)}` });
  await newAgentKey(server, agent);
  keyId = (
    await server.deps.db.query<{ id: string }>('SELECT id FROM agent_keys WHERE agent_id = $1', [
      agent.agentId,
    ])
  ).rows[0].id;
  challengeId = await newChallenge(server);
});
afterAll(() => server?.close());

async function signedIn(
  user: TestUser,
  role: 'user' | 'admin',
): Promise<{ session: WebSession; principal: Principal }> {
  const { session } = await startWebSession(server.deps.db, server.config, {
    subject: user.subject,
    name: role === 'admin' ? 'Operator' : 'Ada',
    role,
  });
  return {
    session,
    principal: { kind: 'user', userId: session.userId, role: session.role, name: session.name },
  };
}

/** Fields a person might have typed into any of the forms, each value marked as typed. */
const TYPED = [
  'name',
  'model_name',
  'description',
  'reason',
  'since',
  'delivery_ids',
  'url',
  'events',
  'expires_in_hours',
  'scopes',
  'agent_id',
  'language',
  'code',
  'question',
  'answer',
  'audience',
  'title',
  'body',
  'submission_id',
  'weight_class',
];

/** The path with its parameters: what exists (the person's own agent, key, token, a challenge) or an unknown id. */
function actionFor(path: string, existing: boolean): string {
  const known: Record<string, string> = {
    id: path.startsWith('/me/agents')
      ? agent.agentId
      : path.startsWith('/me/tokens')
        ? agent.tokenId
        : path.includes('challenges')
          ? challengeId
          : randomUUID(),
    keyId,
    deliveryId: randomUUID(),
  };
  return path.replace(/:([A-Za-z]+)/g, (_, name: string) => (existing ? known[name] : randomUUID()));
}

/** The handler's answer as the person gets it: every /unsent answer is an HTML page. */
const html = async (result: HandlerResult): Promise<{ status: number; text: string }> => {
  expect(result).toHaveProperty('raw');
  const r = result as { status?: number; raw: unknown };
  return { status: r.status ?? 200, text: String(r.raw) };
};

describe.each([
  ['what it was for still exists', true],
  ['what it was for is gone', false],
])('every kept form comes back as a page: %s', (_label, existing) => {
  test.each(UNSENT_FORMS.map((entry) => [entry.path]))('%s', async (path) => {
    const owner = await signedIn(agent.user, 'user');
    const operator = await signedIn(admin, 'admin');
    const forOperators = path.startsWith('/admin/');
    const who = forOperators ? operator : owner;
    const stash = {
      user_id: who.session.userId,
      action: actionFor(path, existing),
      page: path.startsWith('/admin/') ? '/admin/challenges' : '/me',
      fields: TYPED.map((name) => [name, `typed-${name}`] as [string, string]),
      had_files: false,
      created_at: new Date(),
    };
    const page = await html(await restoreUnsentForm(server.deps, who.principal, who.session, stash));
    expect(page.status).toBe(200);
    expect(page.text).toContain('<html');
    // Never a field's internal name shown as if it were a label (the console's reference of the
    // challenge's settings names them as code, which is what they are there). Plain words such as
    // `name` or `code` are also ordinary text (an option "code"), so the names checked are the
    // ones no person would write.
    for (const name of TYPED.filter((n) => n.includes('_')))
      expect(page.text).not.toMatch(new RegExp(`(?<!<code)>\\s*${name}\\s*<(?!/code>)`));
    if (existing && page.status === 200) expect(page.text).toMatch(/not sent|typed-/);

    // Someone else's console form is never described to a person who is not an operator.
    if (forOperators) {
      const stranger = await html(
        await restoreUnsentForm(server.deps, owner.principal, owner.session, {
          ...stash,
          user_id: owner.session.userId,
        }),
      );
      expect(stranger.status).toBe(200);
      expect(stranger.text).not.toContain('typed-reason');
      expect(stranger.text).not.toContain('typed-answer');
    }
  });
});

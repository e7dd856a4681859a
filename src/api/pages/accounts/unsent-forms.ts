/**
 * /unsent for every form that is kept through a sign-in (issue 41, item 8; docs/decisions/web.md
 * "/unsent is the form itself"): every form of a signed-in page (`signedInForm`, any POST of
 * `auth: 'webSession'` without `whenSignedOut`) has one entry here, by its route's path.
 *
 * - Forms people fill at length come back as themselves: their own page, what was typed back in
 *   its fields, under a notice that nothing was sent (take part, create an agent, the console's
 *   challenge form and its helper buttons, the confirmation steps with a reason, an exhibition's
 *   picks, an announcement, the final-board selection).
 * - Every other form (one button, or a box or two beside one object) is a summary in its own
 *   words: its title, what it acts on, each field under the label the form gives it, its button.
 *
 * Nothing is shown by an internal field name. What an entry looks up is what the person may read
 * (their own agents and tokens, a challenge they can see); console forms are described to
 * operators only.
 */
import { SCOPES } from '../../../auth/scopes';
import type { Principal } from '../../../auth/principal';
import { listAgentKeys } from '../../../db/queries/agent-keys';
import { listAgentsByOwner } from '../../../db/queries/agents';
import { listUnrevokedApiTokens } from '../../../db/queries/api-tokens';
import type { WebFormStashRow } from '../../../db/queries/web-form-stashes';
import { isOperatorSession } from '../../../domain/accounts/policy';
import type { WebSession } from '../../../domain/accounts/web-sessions';
import { requireVisibleChallenge } from '../../../domain/challenges/lifecycle';
import { EVENT_TYPES } from '../../../events/types';
import { ServiceError } from '../../../errors';
import type { AppDeps } from '../../deps';
import type { ParsedForm } from '../../form-body';
import { htmlPage } from '../../html-page';
import type { HandlerResult } from '../../route';
import { confirmTransitionPage, formPage, type Transition } from '../challenges/console-routes';
import { requireConsoleChallenge } from '../console/routes';
import { consolePage } from '../contests/routes';
import { exhibitionPage, requireMatch, requireMatchChallenge, voidPage } from '../matches/console-routes';
import { headerAccount } from '../../../web/layout';
import { valuesOf } from '../challenges/form';
import { testsStateOf } from '../challenges/judge-tests';
import { agentsPage, historyPage, takePartPage } from './routes';
import { renderUnsentFormPage, type UnsentFieldView, type UnsentFormView } from './sign-in-view';
import type { RestoredForm } from './view';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What an entry gets: the kept form, its path's parameters, and who is signed in now. */
interface Kept {
  deps: AppDeps;
  principal: Principal;
  session: WebSession;
  params: Record<string, string>;
  /** Every value of each field, in the order typed. */
  fields: ReadonlyMap<string, string[]>;
  stash: WebFormStashRow;
}

type Restored = { page: HandlerResult } | { summary: UnsentFormView } | null;

export interface UnsentFormEntry {
  /** The form's route path, as in the route table (`/me/agents/:id`). */
  path: string;
  restore(kept: Kept): Promise<Restored>;
}

type FieldSpec = Omit<UnsentFieldView, 'values'>;

/** A summary in the form's words: the fields it names shown under their labels, the rest sent as it was. */
function summary(
  kept: Kept,
  title: string,
  submit: string,
  specs: FieldSpec[],
  facts: { label: string; value: string }[] = [],
): Restored {
  const named = new Set(specs.map((s) => s.name));
  const fields = specs.map((s) => ({ ...s, values: kept.fields.get(s.name) ?? [] }));
  const hidden = kept.stash.fields.filter(([name]) => !named.has(name));
  return { summary: { title, submit, facts, fields, hidden } };
}

const first = (kept: Kept, name: string) => kept.fields.get(name)?.[0] ?? '';
const validId = (kept: Kept, param = 'id') => UUID.test(kept.params[param] ?? '');

/** The signed-in person's own agent of that id, or null (another's is not described). */
async function ownAgent(kept: Kept, id: string) {
  if (!UUID.test(id)) return null;
  return (await listAgentsByOwner(kept.deps.db, kept.session.userId)).find((a) => a.id === id) ?? null;
}

/** The first value of each field: the forms shown as themselves have no repeated field but the noted ones. */
function restoredOf(kept: Kept): RestoredForm {
  const values = new Map<string, string>();
  for (const [name, list] of kept.fields) if (list.length) values.set(name, list[0]);
  return { values, hadFiles: kept.stash.had_files };
}

/** Operators' console forms: described to operators only (anyone else's post was refused anyway). */
function console_(path: string, restore: (kept: Kept) => Promise<Restored>): UnsentFormEntry {
  return {
    path,
    restore: (kept) => (isOperatorSession(kept.session) ? restore(kept) : Promise.resolve(null)),
  };
}

const NOTICE =
  'Your form was not sent: you were signed out when you sent it (from another tab, or the session had ended), so nothing changed. What you typed is back in the form below: check it, then send it again.';

/** The console's challenge form and its helper buttons (template, tests, dry run) come back as the form, as typed. */
function challengeFormEntry(path: string, existing: boolean): UnsentFormEntry {
  return console_(path, async (kept) => {
    const row = existing ? await requireConsoleChallenge(kept.deps, kept.params.id) : null;
    const form: ParsedForm = { fields: Object.fromEntries(kept.fields), files: {} };
    const notice = `${NOTICE}${kept.stash.had_files ? ' The file you attached could not be kept: choose it again.' : ''}`;
    return { page: formPage(kept.session, row, valuesOf(form), {}, { notice, tests: testsStateOf(form) }) };
  });
}

function transitionEntry(action: Transition): UnsentFormEntry {
  return console_(`/admin/challenges/:id/${action}`, async (kept) => {
    const row = await requireConsoleChallenge(kept.deps, kept.params.id);
    const reason = action === 'quarantine' ? { value: first(kept, 'reason') } : undefined;
    return { page: confirmTransitionPage(kept.session, row, action, reason, 200, NOTICE) };
  });
}

export const UNSENT_FORMS: readonly UnsentFormEntry[] = [
  // ---- the person's own pages (/me) ----------------------------------------------------------------
  {
    path: '/me/agents',
    restore: async (kept) => ({
      page: await agentsPage(kept.deps, kept.session, undefined, restoredOf(kept)),
    }),
  },
  {
    path: '/me/challenges/:id/submissions',
    restore: async (kept) =>
      validId(kept)
        ? {
            page: await takePartPage(
              kept.deps,
              kept.principal,
              kept.session,
              kept.params.id,
              restoredOf(kept),
            ),
          }
        : null,
  },
  {
    path: '/me/agents/:id',
    restore: async (kept) => {
      const agent = await ownAgent(kept, kept.params.id);
      if (!agent) return null;
      return summary(
        kept,
        'Rename the agent',
        'Rename',
        [{ name: 'name', label: 'New name', kind: 'line' }],
        [{ label: 'Agent', value: agent.name }],
      );
    },
  },
  {
    path: '/me/agents/:id/delete',
    restore: async (kept) => {
      const agent = await ownAgent(kept, kept.params.id);
      if (!agent) return null;
      return summary(
        kept,
        'Delete the agent (revokes its keys and tokens; its results stay on the boards)',
        'Delete agent',
        [],
        [{ label: 'Agent', value: agent.name }],
      );
    },
  },
  {
    path: '/me/agents/:id/keys',
    restore: async (kept) => {
      const agent = await ownAgent(kept, kept.params.id);
      if (!agent) return null;
      return summary(
        kept,
        'A new connector key',
        'New connector key',
        [{ name: 'expires_in_hours', label: 'Valid for (hours)', kind: 'number' }],
        [{ label: 'Agent', value: agent.name }],
      );
    },
  },
  {
    path: '/me/agents/:id/keys/:keyId/revoke',
    restore: async (kept) => {
      const agent = await ownAgent(kept, kept.params.id);
      if (!agent || !validId(kept, 'keyId')) return null;
      const key = (await listAgentKeys(kept.deps.db, agent.id)).find((k) => k.id === kept.params.keyId);
      if (!key) return null;
      return summary(
        kept,
        'Revoke a connector key',
        'Revoke',
        [],
        [
          { label: 'Agent', value: agent.name },
          { label: 'Key', value: `${key.key_prefix}…` },
        ],
      );
    },
  },
  {
    path: '/me/tokens',
    restore: async (kept) => {
      const agents = await listAgentsByOwner(kept.deps.db, kept.session.userId);
      const picked = agents.find((a) => a.id === first(kept, 'agent_id'));
      return summary(kept, 'Create an API token', 'Create token', [
        { name: 'name', label: 'Name', kind: 'line' },
        ...(picked ? [{ name: 'agent_id', label: 'Agent', kind: 'fixed' as const, shown: picked.name }] : []),
        {
          name: 'scopes',
          label: 'Scopes',
          kind: 'checks',
          options: SCOPES.map((s) => ({ value: s, label: s })),
        },
        { name: 'expires_in_days', label: 'Expires after (days; empty: never)', kind: 'number' },
      ]);
    },
  },
  {
    path: '/me/tokens/:id/revoke',
    restore: async (kept) => {
      if (!validId(kept)) return null;
      const tokens = await listUnrevokedApiTokens(kept.deps.db, kept.session.userId);
      const token = tokens.find((t) => t.id === kept.params.id);
      if (!token) return null;
      return summary(
        kept,
        'Revoke an API token',
        'Revoke',
        [],
        [{ label: 'Token', value: `${token.name} (${token.token_prefix}…)` }],
      );
    },
  },
  {
    path: '/challenges/:id/enter',
    restore: async (kept) => {
      if (!validId(kept)) return null;
      const challenge = await requireVisibleChallenge(kept.deps.db, kept.principal, kept.params.id);
      const agent = await ownAgent(kept, first(kept, 'agent_id'));
      if (!agent) return null;
      return summary(
        kept,
        'Enter this challenge',
        'Enter this challenge',
        [{ name: 'agent_id', label: 'Agent', kind: 'fixed', shown: agent.name }],
        [{ label: 'Challenge', value: challenge.title }],
      );
    },
  },
  {
    path: '/challenges/:id/clarifications',
    restore: async (kept) => {
      if (!validId(kept)) return null;
      const challenge = await requireVisibleChallenge(kept.deps.db, kept.principal, kept.params.id);
      return summary(
        kept,
        'Ask the operators a question',
        'Ask',
        [{ name: 'question', label: 'Ask the operators a question', kind: 'text' }],
        [{ label: 'Challenge', value: challenge.title }],
      );
    },
  },
  {
    path: '/me/submissions/:id/select',
    restore: async (kept) => {
      if (!validId(kept)) return null;
      const selecting = first(kept, 'selected') === 'true';
      const what = selecting ? 'Select for the final board' : 'Unselect for the final board';
      return summary(kept, what, what, [], [{ label: 'Submission', value: kept.params.id }]);
    },
  },
  {
    path: '/me/final-selection',
    restore: async (kept) => {
      const challengeId = first(kept, 'challenge_id');
      const agentId = first(kept, 'agent_id');
      if (!UUID.test(challengeId) || !UUID.test(agentId)) return null;
      const shown = kept.fields.get('shown') ?? [];
      const page = await historyPage(
        kept.deps,
        kept.principal,
        kept.session,
        { challenge_id: challengeId },
        {
          challengeId,
          agentId,
          chosen: (kept.fields.get('selected') ?? []).filter((id) => shown.includes(id)),
          error: `${NOTICE.replace('in the form below', 'in the boxes')} Then "Save selection".`,
        },
      );
      return { page: htmlPage(page) };
    },
  },
  // ---- webhooks (/me/webhooks) -----------------------------------------------------------------------
  {
    path: '/me/webhooks',
    restore: async (kept) =>
      summary(kept, 'Create a webhook', 'Create webhook', [
        { name: 'url', label: 'Endpoint URL (https; http only to loopback)', kind: 'line' },
        {
          name: 'events',
          label: 'Events to receive',
          kind: 'checks',
          options: EVENT_TYPES.map((t) => ({ value: t, label: t })),
        },
      ]),
  },
  {
    path: '/me/webhooks/:id/deliveries/:deliveryId/replay',
    restore: async (kept) =>
      summary(
        kept,
        'Replay this delivery',
        'Replay',
        [],
        [{ label: 'Delivery', value: kept.params.deliveryId }],
      ),
  },
  {
    path: '/me/webhooks/:id/test',
    restore: async (kept) => summary(kept, 'Send a test event', 'Send a test event', []),
  },
  {
    path: '/me/webhooks/:id/replay-dead-letters',
    restore: async (kept) =>
      summary(kept, 'Replay the latest dead letters', 'Replay the latest dead letters', []),
  },
  {
    path: '/me/webhooks/:id/enable',
    restore: async (kept) =>
      summary(kept, 'Re-enable this subscription', 'Re-enable', [
        {
          name: 'replay_dead_letters',
          label: 'Also replay what was dead-lettered while it was down',
          kind: 'check',
          options: [{ value: 'yes', label: 'Also replay what was dead-lettered while it was down' }],
        },
      ]),
  },
  // ---- the operators' console (/admin) ---------------------------------------------------------------
  challengeFormEntry('/admin/challenges', false),
  challengeFormEntry('/admin/challenges/new/judge-template', false),
  challengeFormEntry('/admin/challenges/new/judge-tests', false),
  challengeFormEntry('/admin/challenges/new/dry-run', false),
  challengeFormEntry('/admin/challenges/:id', true),
  challengeFormEntry('/admin/challenges/:id/judge-template', true),
  challengeFormEntry('/admin/challenges/:id/judge-tests', true),
  challengeFormEntry('/admin/challenges/:id/dry-run', true),
  transitionEntry('publish'),
  transitionEntry('quarantine'),
  transitionEntry('retire'),
  console_('/admin/challenges/:id/rejudge', async (kept) => {
    const row = await requireConsoleChallenge(kept.deps, kept.params.id);
    return summary(
      kept,
      `Rejudge every submission of "${row.title}"?`,
      'Rejudge all',
      [
        {
          name: 'status',
          label: 'Submissions to judge again',
          kind: 'checks',
          options: [
            { value: 'complete', label: 'complete' },
            { value: 'failed', label: 'failed' },
          ],
        },
      ],
      [{ label: 'Challenge', value: row.title }],
    );
  }),
  console_('/admin/submissions/:id/rejudge', async (kept) =>
    validId(kept)
      ? summary(
          kept,
          'Rejudge this submission?',
          'Rejudge',
          [],
          [{ label: 'Submission', value: kept.params.id }],
        )
      : null,
  ),
  console_('/admin/challenges/:id/exhibition', async (kept) => {
    const row = await requireMatchChallenge(kept.deps, kept.params.id);
    const typed = {
      picked: kept.fields.get('agent_id') ?? [],
      rated: first(kept, 'rated') === '1',
      error: NOTICE,
    };
    return { page: await exhibitionPage(kept.deps, kept.session, row, typed) };
  }),
  console_('/admin/matches/:id/void', async (kept) => {
    const match = await requireMatch(kept.deps, kept.params.id);
    return { page: voidPage(kept.session, match, 'match', { value: first(kept, 'reason') }, 200, NOTICE) };
  }),
  console_('/admin/announcements', async (kept) => {
    const page = await consolePage(
      kept.deps.db,
      { csrfToken: kept.session.csrfToken, account: headerAccount(kept.session) },
      { challengeId: first(kept, 'challenge_id'), text: first(kept, 'text'), errors: {} },
      NOTICE,
    );
    return { page: htmlPage(page) };
  }),
  console_('/admin/clarifications/:id/answer', async (kept) =>
    validId(kept)
      ? summary(kept, 'Answer a question', 'Answer', [
          { name: 'answer', label: 'Answer', kind: 'text' },
          {
            name: 'public',
            label: 'Public: everyone sees the question and the answer',
            kind: 'check',
            options: [{ value: 'true', label: 'Public: everyone sees the question and the answer' }],
          },
        ])
      : null,
  ),
  console_('/admin/deliveries/:deliveryId/replay', async (kept) =>
    summary(
      kept,
      'Replay this delivery',
      'Replay this delivery',
      [],
      [{ label: 'Delivery', value: kept.params.deliveryId }],
    ),
  ),
  console_('/admin/deliveries/replay', async (kept) => {
    const ids = kept.fields.get('delivery_ids') ?? [];
    return summary(kept, 'Replay the selected deliveries', 'Replay the selected', [
      {
        name: 'delivery_ids',
        label: 'Deliveries to replay',
        kind: 'checks',
        options: ids.map((id) => ({ value: id, label: id })),
      },
    ]);
  }),
  console_('/admin/webhooks/:id/replay-dead-letters', async (kept) =>
    summary(kept, 'Replay dead letters since a time', 'Replay dead letters', [
      { name: 'since', label: 'Replay every dead letter created since (UTC)', kind: 'datetime' },
    ]),
  ),
];

const matchers = UNSENT_FORMS.map((entry) => {
  const names: string[] = [];
  const source = entry.path.replace(/:([A-Za-z]+)/g, (_, name: string) => {
    names.push(name);
    return '([^/]+)';
  });
  return { entry, pattern: new RegExp(`^${source}$`), names };
});

/** The entry for a kept form's action, with its path parameters (null: none; the route table's test keeps every form listed). */
export function unsentFormEntryFor(action: string) {
  for (const { entry, pattern, names } of matchers) {
    const m = pattern.exec(action);
    if (m) return { entry, params: Object.fromEntries(names.map((n, i) => [n, m[i + 1]])) };
  }
  return null;
}

/**
 * /unsent with a kept form: the form as itself or its summary; when what it was for is gone (or
 * not the person's to read), the page that leads back to where it was.
 */
export async function restoreUnsentForm(
  deps: AppDeps,
  principal: Principal,
  session: WebSession,
  stash: WebFormStashRow,
): Promise<HandlerResult> {
  const found = unsentFormEntryFor(stash.action);
  const fields = new Map<string, string[]>();
  for (const [name, value] of stash.fields) fields.set(name, [...(fields.get(name) ?? []), value]);
  let restored: Restored = null;
  if (found) {
    try {
      restored = await found.entry.restore({ deps, principal, session, params: found.params, fields, stash });
    } catch (err) {
      // What it was for is gone or hidden now (404, 403): the generic page, leading back.
      if (!(err instanceof ServiceError)) throw err;
    }
  }
  if (restored && 'page' in restored) return restored.page;
  return htmlPage(
    renderUnsentFormPage({
      stash,
      described: restored?.summary ?? null,
      csrfToken: session.csrfToken,
      account: headerAccount(session),
    }),
  );
}

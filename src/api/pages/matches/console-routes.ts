/**
 * The console's match actions (issue 41.6; docs/decisions/operators.md): "Start an exhibition"
 * from a match challenge's console page and "Void this match" from a match page, each through a
 * confirmation step, calling the domain functions the operators' API uses
 * (POST /api/v1/admin/challenges/{id}/matches, POST /api/v1/admin/matches/{id}/void), which
 * audit in the action's transaction. Under /admin: operators only (page-routes.ts).
 */
import { z } from 'zod';
import { findMatchById } from '../../../db/queries/matches';
import { listExhibitionCandidates } from '../../../db/queries/entries';
import type { ChallengeRow } from '../../../db/queries/challenges';
import type { WebSession } from '../../../domain/accounts/web-sessions';
import { actorOf } from '../../../domain/audit/policy';
import { createExhibition } from '../../../domain/matches/exhibition';
import { isMatchFormat, matchSettingsOf } from '../../../domain/matches/rules';
import { voidMatch } from '../../../domain/matches/void';
import { notFound, ServiceError } from '../../../errors';
import type { AppDeps } from '../../deps';
import { htmlPage } from '../../html-page';
import { signedInForm, signedInPage } from '../../page-routes';
import { type AnyRouteDef, uuidParam } from '../../route';
import { createMatchBody, voidMatchBody } from '../../schemas/matches';
import { account, confirmedForm, requireConsoleChallenge } from '../console/routes';
import { renderConfirmPage } from '../console/view';
import { renderExhibitionPage } from './console-view';

/** Agents listed on the form (a ladder larger than this is picked through the API or CLI). */
const CANDIDATES = 200;

export async function exhibitionPage(
  deps: AppDeps,
  session: WebSession,
  row: ChallengeRow,
  typed: { picked: string[]; rated: boolean; error?: string } = { picked: [], rated: false },
  status = 200,
) {
  const candidates = await listExhibitionCandidates(deps.db, row.id, CANDIDATES);
  return htmlPage(
    renderExhibitionPage({
      challenge: row,
      players: matchSettingsOf(row).players,
      candidates,
      picked: new Set(typed.picked),
      rated: typed.rated,
      error: typed.error,
      csrfToken: session.csrfToken,
      account: account(session),
    }),
    status,
  );
}

/** A match challenge, or the 404 page: other formats have no matches to start. */
export async function requireMatchChallenge(deps: AppDeps, id: string): Promise<ChallengeRow> {
  const row = await requireConsoleChallenge(deps, id);
  if (!isMatchFormat(row.format)) throw notFound('Match challenge');
  return row;
}

/**
 * Where the void step returns: the page it was opened from, the match's (default) or its
 * challenge's list of matches (`from=challenge`); an address built here, never one the form names.
 */
const voidFrom = z.object({ from: z.enum(['match', 'challenge']).catch('match') }).passthrough();
type VoidFrom = z.infer<typeof voidFrom>['from'];
const returnTo = (match: { id: string; challenge_id: string }, from: VoidFrom) =>
  from === 'challenge' ? `/challenges/${match.challenge_id}#matches` : `/matches/${match.id}`;

export async function requireMatch(deps: AppDeps, id: string) {
  const match = await findMatchById(deps.db, id);
  if (!match) throw notFound('Match');
  return match;
}

export function voidPage(
  session: WebSession,
  match: { id: string; challenge_id: string },
  from: VoidFrom,
  reason: { value: string; error?: string },
  status = 200,
  notice?: string,
) {
  return htmlPage(
    renderConfirmPage({
      title: 'Void this match?',
      explanation:
        'The match ends now without a result: it is unrated, its sessions close and its agents may be matched again. Only a scheduled or running match can be voided. Recorded in the audit trail (match.void) with your reason.',
      action: `/admin/matches/${match.id}/void${from === 'challenge' ? '?from=challenge' : ''}`,
      confirmLabel: 'Void this match',
      cancelHref: returnTo(match, from),
      csrfToken: session.csrfToken,
      account: account(session),
      reason,
      notice,
    }),
    status,
  );
}

export const consoleMatchRoutes: AnyRouteDef[] = [
  signedInPage(
    'consoleExhibitionPage',
    '/admin/challenges/:id/exhibition',
    'Console: pick the agents of an exhibition match (then confirm)',
    {
      params: uuidParam,
      async handler({ params, deps, webSession }) {
        return exhibitionPage(deps, webSession, await requireMatchChallenge(deps, params.id));
      },
    },
  ),
  signedInForm(
    'consoleExhibitionForm',
    '/admin/challenges/:id/exhibition',
    'Console form: start an exhibition match now (confirmed; audited)',
    {
      params: uuidParam,
      body: confirmedForm,
      async handler({ params, deps, principal, webSession, form }) {
        const row = await requireMatchChallenge(deps, params.id);
        const picked = form?.fields.agent_id ?? [];
        const rated = form?.fields.rated?.[0] === '1';
        const refuse = (error: string) =>
          exhibitionPage(deps, webSession, row, { picked, rated, error }, 400);
        const parsed = createMatchBody.safeParse({ agent_ids: picked, rated });
        if (!parsed.success)
          return refuse(`Pick ${matchSettingsOf(row).players} agents (you picked ${picked.length}).`);
        try {
          const match = await createExhibition(deps, actorOf(principal), row.id, parsed.data);
          return { redirect: `/matches/${match.id}`, status: 303 };
        } catch (err) {
          if (err instanceof ServiceError && err.code === 'VALIDATION_ERROR')
            return refuse(err.message.replace(/^body\.agent_ids: /, ''));
          throw err;
        }
      },
    },
  ),
  signedInPage('consoleConfirmVoidMatch', '/admin/matches/:id/void', 'Console: confirm voiding a match', {
    params: uuidParam,
    query: voidFrom,
    async handler({ params, query, deps, webSession }) {
      return voidPage(webSession, await requireMatch(deps, params.id), query.from, { value: '' });
    },
  }),
  signedInForm(
    'consoleVoidMatchForm',
    '/admin/matches/:id/void',
    'Console form: void a scheduled or running match (confirmed, with a reason; audited)',
    {
      params: uuidParam,
      query: voidFrom,
      body: confirmedForm,
      async handler({ params, query, deps, principal, webSession, form }) {
        const match = await requireMatch(deps, params.id);
        const reason = form?.fields.reason?.[0] ?? '';
        const parsed = voidMatchBody.safeParse({ reason });
        if (!parsed.success)
          return voidPage(
            webSession,
            match,
            query.from,
            { value: reason, error: 'A reason is required.' },
            400,
          );
        try {
          await voidMatch(deps, actorOf(principal), params.id, parsed.data.reason);
        } catch (err) {
          if (err instanceof ServiceError && err.code === 'CONFLICT')
            return voidPage(webSession, match, query.from, { value: reason, error: err.message }, 409);
          throw err;
        }
        return { redirect: returnTo(match, query.from), status: 303 };
      },
    },
  ),
];

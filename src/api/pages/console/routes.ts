/**
 * The operators' console (docs/decisions/operators.md "The console"): web-session pages for
 * operators only (`operatorsOnly`: anyone else signed in gets the 403 page; signed out, the sign-in
 * redirect). Every action calls the same domain function as the operators' API, which writes the
 * audit record in the action's transaction; every form is CSRF-checked by the pipeline. Here: the
 * landing page and what the console's pages share; the pages themselves live with their feature
 * (challenges/console-routes.ts, submissions/console-routes.ts, audit/console-routes.ts,
 * webhooks/routes.ts).
 */
import { z } from 'zod';
import { countChallengesByStatus, type ChallengeRow } from '../../../db/queries/challenges';
import { notFound } from '../../../errors';
import { challengeStoreOf } from '../../../domain/challenges/lifecycle';
import type { AppDeps } from '../../deps';
import { countUnansweredQuestions } from '../../../db/queries/clarifications';
import type { WebSession } from '../../../domain/accounts/web-sessions';
import { headerAccount } from '../../../web/layout';
import { htmlPage } from '../../html-page';
import { type AnyRouteDef } from '../../route';
import { signedInPage } from '../../page-routes';
import { renderConsoleHome } from './view';

/** The form is read field by field by the handler (so what was typed comes back with its errors). */
export const anyForm = z.object({ _csrf: z.string() }).passthrough();
/** A confirmation's form: the confirm button's value must be there (a bare POST does nothing). */
export const confirmedForm = z.object({ _csrf: z.string(), confirm: z.literal('yes') }).passthrough();
/** GET filter forms send empty boxes as `name=`: absent. */
export const blankIsAbsent = <T extends z.ZodTypeAny>(schema: T) =>
  z.preprocess((v) => (v === '' ? undefined : v), schema);

export const account = (session: WebSession | null) => headerAccount(session);

/** Rows per page (50 unless told; links keep it). */
export const pageSize = blankIsAbsent(z.coerce.number().int().min(1).max(100).default(50));

/** `?done=` after an action's redirect: the notice it shows (an unknown value shows none). */
export function doneNotices<K extends string>(notices: Record<K, string>) {
  const query = z.object({
    done: z
      .enum(Object.keys(notices) as [K, ...K[]])
      .optional()
      .catch(undefined),
  });
  const noticeOf = (done: K | undefined) => (done ? notices[done] : undefined);
  return { query, noticeOf };
}

/** The challenge a console page is about (operators see every status), or the 404 page. */
export async function requireConsoleChallenge(deps: AppDeps, id: string): Promise<ChallengeRow> {
  const row = await challengeStoreOf(deps).findChallengeById(id);
  if (!row) throw notFound('Challenge');
  return row;
}

export const consolePageRoutes: AnyRouteDef[] = [
  signedInPage('consoleHome', '/admin', "Console: the operators' landing page", {
    async handler({ deps, webSession }) {
      const [counts, unanswered] = await Promise.all([
        countChallengesByStatus(deps.db),
        countUnansweredQuestions(deps.db),
      ]);
      return htmlPage(renderConsoleHome({ counts, unanswered, account: account(webSession) }));
    },
  }),
];

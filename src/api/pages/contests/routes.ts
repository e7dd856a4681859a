/** Fair contests on the web: ask from the challenge page, select on the submission page, answer in the console. */
import { z } from 'zod';
import type { Pool } from 'pg';
import { listChallenges } from '../../../db/queries/challenges';
import { listUnansweredQuestions } from '../../../db/queries/clarifications';
import { actorOf } from '../../../domain/audit/policy';
import { announce, answerQuestion, askQuestion } from '../../../domain/contests/clarifications';
import { selectSubmission } from '../../../domain/contests/selection';
import { ServiceError } from '../../../errors';
import { headerAccount, type HeaderAccount } from '../../../web/layout';
import { renderClarificationsConsole, type AnnouncementFormState } from './console-view';
import { htmlPage } from '../../html-page';
import { signedInForm, signedInPage } from '../../page-routes';
import type { AnyRouteDef } from '../../route';
import { safeText } from '../../schemas/common';

const idParams = z.object({ id: z.string().uuid() });
const CONSOLE_LIMIT = 200;
/** The challenges an announcement may be for: the published ones (a draft has no readers yet). */
const ANNOUNCEABLE = ['active', 'complete', 'archived'] as const;

const NOTICES: Record<string, string> = {
  answered: 'Answered.',
  announced: 'Announced: the announcement is on the challenge page.',
};

export async function consolePage(
  db: Pool,
  session: { csrfToken: string; account: HeaderAccount },
  announcement: Omit<AnnouncementFormState, 'challenges'>,
  notice?: string,
) {
  const [unanswered, challenges] = await Promise.all([
    listUnansweredQuestions(db, CONSOLE_LIMIT),
    listChallenges(db, { statuses: ANNOUNCEABLE }, { limit: CONSOLE_LIMIT, offset: 0 }),
  ]);
  return renderClarificationsConsole({
    unanswered,
    announcement: { ...announcement, challenges: challenges.rows },
    csrfToken: session.csrfToken,
    notice,
    account: session.account,
  });
}

export const contestPageRoutes: AnyRouteDef[] = [
  signedInForm(
    'askClarificationForm',
    '/challenges/:id/clarifications',
    'Web form: ask a question about a challenge',
    {
      params: idParams,
      body: z.object({ _csrf: z.string(), question: safeText(2_000, 1) }),
      async handler({ params, body, principal, deps }) {
        await askQuestion(deps, principal, params.id, body.question);
        return { redirect: `/challenges/${params.id}#clarifications`, status: 303 };
      },
    },
  ),
  signedInForm(
    'selectSubmissionForm',
    '/me/submissions/:id/select',
    'Web form: select or unselect a submission for the final board',
    {
      params: idParams,
      body: z.object({ _csrf: z.string(), selected: z.enum(['true', 'false']) }),
      async handler({ params, body, principal, deps }) {
        await selectSubmission(deps.db, principal, params.id, body.selected === 'true');
        return { redirect: `/me/submissions/${params.id}`, status: 303 };
      },
    },
  ),
  signedInPage('consoleClarifications', '/admin/clarifications', 'Console: questions waiting for an answer', {
    query: z.object({
      done: z.string().max(50).optional().catch(undefined),
      challenge_id: z.string().uuid().optional().catch(undefined),
    }),
    async handler({ query, deps, webSession }) {
      return htmlPage(
        await consolePage(
          deps.db,
          { csrfToken: webSession.csrfToken, account: headerAccount(webSession) },
          { challengeId: query.challenge_id ?? '', text: '', errors: {} },
          query.done ? NOTICES[query.done] : undefined,
        ),
      );
    },
  }),
  signedInForm(
    'consoleAnnounce',
    '/admin/announcements',
    'Console form: post a public announcement for a challenge',
    {
      body: z.object({
        _csrf: z.string(),
        challenge_id: z.string().max(100).default(''),
        text: safeText(20_000).default(''),
      }),
      async handler({ body, principal, deps, webSession }) {
        const errors: Record<string, string> = {};
        const idOk = z.string().uuid().safeParse(body.challenge_id).success;
        if (!idOk) errors.challenge_id = 'pick a challenge';
        if (body.text.trim() === '') errors.text = 'must not be blank';
        if (!errors.challenge_id && !errors.text) {
          try {
            await announce(deps, actorOf(principal), body.challenge_id, body.text);
            return { redirect: '/admin/clarifications?done=announced', status: 303 };
          } catch (err) {
            if (!(err instanceof ServiceError)) throw err;
            if (err.code === 'NOT_FOUND') errors.challenge_id = 'no such challenge';
            else if (err.code === 'VALIDATION_ERROR') errors.text = err.message.replace(/^body\.text: /, '');
            else throw err;
          }
        }
        const page = await consolePage(
          deps.db,
          { csrfToken: webSession.csrfToken, account: headerAccount(webSession) },
          { challengeId: body.challenge_id, text: body.text, errors },
        );
        return htmlPage(page, 400);
      },
    },
  ),
  signedInForm(
    'consoleAnswerClarification',
    '/admin/clarifications/:id/answer',
    'Console form: answer a question',
    {
      params: idParams,
      body: z.object({
        _csrf: z.string(),
        answer: safeText(5_000, 1),
        public: z.literal('true').optional(),
      }),
      async handler({ params, body, principal, deps }) {
        await answerQuestion(deps, actorOf(principal), params.id, {
          answer: body.answer,
          public: body.public === 'true',
        });
        return { redirect: '/admin/clarifications?done=answered', status: 303 };
      },
    },
  ),
];

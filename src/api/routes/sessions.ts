import { findEntryById } from '../../db/queries/entries';
import { countCountingSessionSubmissions, listSessionSubmissions } from '../../db/queries/submissions';
import { closeSessionByCaller, loadSessionFor, openSession } from '../../domain/sessions';
import { nudgeBoutOfSession } from '../../domain/matches/workflow-start';
import { DEFAULT_MAX_SUBMISSIONS_PER_SESSION } from '../../domain/submissions/rules';
import { submissionsLeftForCaller } from '../../domain/submissions/allowance';
import { defineRoute, uuidParam } from '../route';
import { withPublicEntryCount } from '../../domain/contests/boards';
import { toChallenge, toEntry } from '../schemas/challenges';
import { envelope } from '../schemas/common';
import { createSessionQuery, sessionDetailSchema, sessionSchema, toSession } from '../schemas/sessions';
import { toSubmission } from '../schemas/submissions';

export const sessionRoutes = [
  defineRoute({
    operationId: 'createSession',
    method: 'post',
    path: '/api/v1/challenges/:id/sessions',
    summary:
      'Open a session for the acting agent (201), or return its open one (200, existing: true). Creates the entry if missing. ' +
      'JWT callers owning several agents pass ?agent_id=.',
    tags: ['sessions'],
    auth: 'bearer',
    scope: 'challenge:enter',
    rateLimit: 'sessions',
    idempotent: true,
    params: uuidParam,
    query: createSessionQuery,
    responses: {
      201: { description: 'a new session', schema: envelope(sessionSchema) },
      200: {
        description: 'the already-open session (existing: true), or an idempotent replay',
        schema: envelope(sessionSchema),
      },
    },
    async handler({ params, query, principal, deps }) {
      const { session, existing } = await openSession(deps.db, principal, params.id, query.agent_id);
      return { status: existing ? 200 : 201, data: toSession(session, existing) };
    },
  }),
  defineRoute({
    operationId: 'getSession',
    method: 'get',
    path: '/api/v1/sessions/:id',
    summary:
      "A session with its status, challenge, entry, submissions and remaining quota (the owning agent's callers only)",
    tags: ['sessions'],
    auth: 'bearer',
    scope: 'submission:read',
    rateLimit: 'reads',
    params: uuidParam,
    responses: { 200: { description: 'the session', schema: envelope(sessionDetailSchema) } },
    async handler({ params, principal, deps }) {
      const { session, challenge } = await loadSessionFor(deps.db, principal, params.id);
      const [entry, submissions, counted, left] = await Promise.all([
        findEntryById(deps.db, session.entry_id),
        listSessionSubmissions(deps.db, session.id),
        countCountingSessionSubmissions(deps.db, session.id),
        submissionsLeftForCaller(deps.db, principal, session.challenge_id),
      ]);
      const max = challenge?.max_submissions_per_session ?? DEFAULT_MAX_SUBMISSIONS_PER_SESSION;
      return {
        data: {
          ...toSession(session),
          challenge: challenge
            ? toChallenge(await withPublicEntryCount(deps.db, principal, challenge))
            : null,
          entry: entry ? toEntry(entry) : null,
          submissions: submissions.map(toSubmission),
          limits: {
            max_submissions_per_session: max,
            submissions_counted: counted,
            submissions_remaining: session.status === 'open' ? Math.max(0, max - counted) : 0,
          },
          submissions_left: left,
        },
      };
    },
  }),
  defineRoute({
    operationId: 'closeSession',
    method: 'delete',
    path: '/api/v1/sessions/:id',
    summary: 'Close a session (extension); closing a closed session returns it unchanged',
    tags: ['sessions'],
    auth: 'bearer',
    scope: 'challenge:enter',
    rateLimit: 'sessions',
    params: uuidParam,
    responses: { 200: { description: 'the closed session', schema: envelope(sessionSchema) } },
    async handler({ params, principal, deps }) {
      const session = await closeSessionByCaller(deps.db, principal, params.id);
      // A bout's participant leaving may end the bout: its workflow looks at once, not at its next poll.
      void nudgeBoutOfSession(deps, session);
      return { data: toSession(session) };
    },
  }),
];

import { z } from 'zod';
import { actorOf } from '../../domain/audit/policy';
import {
  announce,
  answerQuestion,
  askQuestion,
  listChallengeClarifications,
} from '../../domain/contests/clarifications';
import { selectSubmission } from '../../domain/contests/selection';
import { defineRoute, uuidParam } from '../route';
import { envelope } from '../schemas/common';
import { submissionSchema, toSubmission } from '../schemas/submissions';
import { announcementBody, answerBody, clarificationSchema, questionBody } from '../schemas/contests';

/** Fair contests (DESIGN, "Fair contests (solo formats)"): final selection and clarifications. */
export const contestRoutes = [
  defineRoute({
    operationId: 'selectSubmission',
    method: 'post',
    path: '/api/v1/submissions/:id/select',
    summary:
      "Select the submission for the final board (owner; up to the challenge's final_submissions per agent, beyond → 400; another owner's → 404). " +
      "With none selected, the agent's best public-scored submissions count.",
    tags: ['submissions'],
    auth: 'bearer',
    scope: 'submission:create',
    rateLimit: 'default',
    params: uuidParam,
    responses: { 200: { description: 'the submission, selected', schema: envelope(submissionSchema) } },
    async handler({ params, principal, deps }) {
      return { data: toSubmission(await selectSubmission(deps.db, principal, params.id, true)) };
    },
  }),
  defineRoute({
    operationId: 'unselectSubmission',
    method: 'delete',
    path: '/api/v1/submissions/:id/select',
    summary: "Unselect the submission for the final board (owner; another owner's → 404)",
    tags: ['submissions'],
    auth: 'bearer',
    scope: 'submission:create',
    rateLimit: 'default',
    params: uuidParam,
    responses: { 200: { description: 'the submission, not selected', schema: envelope(submissionSchema) } },
    async handler({ params, principal, deps }) {
      return { data: toSubmission(await selectSubmission(deps.db, principal, params.id, false)) };
    },
  }),
  defineRoute({
    operationId: 'askClarification',
    method: 'post',
    path: '/api/v1/challenges/:id/clarifications',
    summary:
      'Ask a question about a challenge (a signed-in user or an API token: the asker is its owner); visible to the asker and operators until answered publicly',
    tags: ['challenges'],
    auth: 'bearer',
    scope: 'challenge:read',
    rateLimit: 'default',
    params: uuidParam,
    body: questionBody,
    responses: { 201: { description: 'the question', schema: envelope(clarificationSchema) } },
    async handler({ params, body, principal, deps }) {
      return { status: 201, data: await askQuestion(deps, principal, params.id, body.question) };
    },
  }),
  defineRoute({
    operationId: 'listClarifications',
    method: 'get',
    path: '/api/v1/challenges/:id/clarifications',
    summary:
      "A challenge's public clarifications and announcements, plus the caller's own questions (authenticated) or all of them (operators), oldest first",
    tags: ['challenges'],
    auth: 'public',
    scope: 'challenge:read',
    rateLimit: 'reads',
    params: uuidParam,
    responses: { 200: { description: 'clarifications', schema: envelope(z.array(clarificationSchema)) } },
    async handler({ params, principal, deps }) {
      return { data: await listChallengeClarifications(deps, principal, params.id) };
    },
  }),
  defineRoute({
    operationId: 'adminAnswerClarification',
    method: 'post',
    path: '/api/v1/admin/clarifications/:id/answer',
    summary: 'Operators: answer a question, privately (the asker sees it) or publicly (everyone does)',
    tags: ['admin'],
    auth: 'admin',
    rateLimit: 'default',
    params: uuidParam,
    body: answerBody,
    responses: { 200: { description: 'the answered question', schema: envelope(clarificationSchema) } },
    async handler({ params, body, principal, deps }) {
      return { data: await answerQuestion(deps, actorOf(principal), params.id, body) };
    },
  }),
  defineRoute({
    operationId: 'adminAnnounce',
    method: 'post',
    path: '/api/v1/admin/challenges/:id/announcements',
    summary:
      'Operators: a public announcement on a challenge (kind announcement, question null, answer the text)',
    tags: ['admin'],
    auth: 'admin',
    rateLimit: 'default',
    params: uuidParam,
    body: announcementBody,
    responses: { 201: { description: 'the announcement', schema: envelope(clarificationSchema) } },
    async handler({ params, body, principal, deps }) {
      return { status: 201, data: await announce(deps, actorOf(principal), params.id, body.text) };
    },
  }),
];

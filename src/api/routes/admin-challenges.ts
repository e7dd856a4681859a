import { z } from 'zod';
import { findChallengeById } from '../../db/queries/challenges';
import {
  createChallenge,
  editChallenge,
  publishChallenge,
  quarantineChallenge,
  retireChallenge,
  type TransitionOutcome,
} from '../../domain/challenges/lifecycle';
import { notFound } from '../../errors';
import { actorOf } from '../../domain/audit/policy';
import { defineRoute, uuidParam } from '../route';
import {
  adminChallengeSchema,
  challengeEtag,
  createChallengeBody,
  listChallengesQuery,
  patchChallengeBody,
  quarantineBody,
  toAdminChallenge,
} from '../schemas/challenges';
import { envelope, pagedEnvelope } from '../schemas/common';
import { listWithJudgesForCaller } from './challenges';
import { dryRunJudge } from '../../domain/challenges/dry-run';
import { createSubmissionBody } from '../schemas/submissions';
import { breakdownSchema } from '../schemas/results';
import { judgeConfigSchema } from '../../judging';
import { versionsOfIfMatch } from '../../domain/challenges/rules';

/** A judge config being edited and a sample submission (same limits as a real one). */
export const dryRunBody = z
  .object({
    judge: judgeConfigSchema,
    submission: createSubmissionBody,
  })
  .strict();

const dryRunResultSchema = z.object({
  workflow_id: z.string().describe('the Temporal workflow that judged it (its history is all that remains)'),
  breakdown: breakdownSchema
    .omit({ submission_id: true, result_id: true, judged_at: true, judge: true })
    .extend({
      audience: z.literal('admin'),
    }),
});

const one = envelope(adminChallengeSchema);

/** Transitions answer 200 with the challenge; `Challenge-Transition: unchanged` marks an idempotent repeat. */
function transitionResult(outcome: TransitionOutcome) {
  return {
    data: toAdminChallenge(outcome.challenge),
    headers: {
      'Challenge-Transition': outcome.changed ? 'applied' : 'unchanged',
      ETag: challengeEtag(outcome.challenge),
    },
  };
}

/** Operator endpoints: a session JWT with role admin (API tokens are 403, no credential 401). */
export const adminChallengeRoutes = [
  defineRoute({
    operationId: 'adminCreateChallenge',
    method: 'post',
    path: '/api/v1/admin/challenges',
    summary: 'Create a draft challenge with its judge config',
    tags: ['admin'],
    auth: 'admin',
    rateLimit: 'default',
    body: createChallengeBody,
    largeBody: true,
    responses: { 201: { description: 'created (draft)', schema: one } },
    async handler({ body, principal, deps }) {
      const row = await createChallenge(deps.db, actorOf(principal).userId, body);
      return { status: 201, data: toAdminChallenge(row!) };
    },
  }),
  defineRoute({
    operationId: 'adminDryRunChallenge',
    method: 'post',
    path: '/api/v1/admin/challenges/dry-run',
    summary:
      'Judge a sample submission with a judge config (e.g. the one being edited) on a worker; answers the admin breakdown. Nothing is stored.',
    tags: ['admin'],
    auth: 'admin',
    rateLimit: 'submissions',
    body: dryRunBody,
    responses: {
      200: { description: 'the admin breakdown of the sample', schema: envelope(dryRunResultSchema) },
      400: {
        description: 'VALIDATION_ERROR: the judge config (with the path of the field) or the grader refused',
      },
    },
    async handler({ body, deps }) {
      return {
        data: await dryRunJudge(deps, {
          judge: body.judge,
          submission: { content: body.submission.content, files: body.submission.files ?? [] },
        }),
      };
    },
  }),
  defineRoute({
    operationId: 'adminListChallenges',
    method: 'get',
    path: '/api/v1/admin/challenges',
    summary: 'List challenges of every status, with their judge config',
    tags: ['admin'],
    auth: 'admin',
    rateLimit: 'default',
    query: listChallengesQuery,
    responses: { 200: { description: 'a page of challenges', schema: pagedEnvelope(adminChallengeSchema) } },
    async handler({ query, principal, deps }) {
      const { rows, pagination } = await listWithJudgesForCaller(deps.db, principal, query);
      return { data: rows.map(toAdminChallenge), pagination };
    },
  }),
  defineRoute({
    operationId: 'adminGetChallenge',
    method: 'get',
    path: '/api/v1/admin/challenges/:id',
    summary: 'Get a challenge with its judge config and lifecycle bookkeeping',
    tags: ['admin'],
    auth: 'admin',
    rateLimit: 'default',
    params: uuidParam,
    responses: {
      200: { description: 'the challenge; `ETag: "<version>"` for a later If-Match', schema: one },
    },
    async handler({ params, deps }) {
      const row = await findChallengeById(deps.db, params.id);
      if (!row) throw notFound('challenge');
      return { data: toAdminChallenge(row), headers: { ETag: challengeEtag(row) } };
    },
  }),
  defineRoute({
    operationId: 'adminUpdateChallenge',
    method: 'patch',
    path: '/api/v1/admin/challenges/:id',
    summary:
      'Edit fields (times re-plan the lifecycle of an active challenge; status changes via publish/quarantine/retire). With `If-Match: "<version>"` (the ETag of GET) an edit made from an older version is refused with 412 and changes nothing; without it the edit applies.',
    tags: ['admin'],
    auth: 'admin',
    rateLimit: 'default',
    params: uuidParam,
    body: patchChallengeBody,
    largeBody: true,
    responses: {
      200: { description: 'updated; `ETag` carries the new version', schema: one },
      412: { description: 'PRECONDITION_FAILED: If-Match names a version that is no longer current' },
    },
    async handler({ params, body, principal, deps, ctx }) {
      const versions = versionsOfIfMatch(ctx.get('If-Match') || undefined);
      const row = await editChallenge(deps, actorOf(principal), params.id, body, versions);
      return { data: toAdminChallenge(row), headers: { ETag: challengeEtag(row) } };
    },
  }),
  defineRoute({
    operationId: 'adminPublishChallenge',
    method: 'post',
    path: '/api/v1/admin/challenges/:id/publish',
    summary: 'Publish: any status → active (emits challenge.published; a repeat changes nothing)',
    tags: ['admin'],
    auth: 'admin',
    rateLimit: 'default',
    params: uuidParam,
    responses: { 200: { description: 'active', schema: one } },
    async handler({ params, principal, deps }) {
      return transitionResult(await publishChallenge(deps, actorOf(principal), params.id));
    },
  }),
  defineRoute({
    operationId: 'adminQuarantineChallenge',
    method: 'post',
    path: '/api/v1/admin/challenges/:id/quarantine',
    summary:
      'Quarantine: active → draft, hidden and not enterable (emits challenge.quarantined); 409 unless active',
    tags: ['admin'],
    auth: 'admin',
    rateLimit: 'default',
    params: uuidParam,
    body: quarantineBody,
    responses: { 200: { description: 'quarantined (draft)', schema: one } },
    async handler({ params, body, principal, deps }) {
      return transitionResult(await quarantineChallenge(deps, actorOf(principal), params.id, body.reason));
    },
  }),
  defineRoute({
    operationId: 'adminRetireChallenge',
    method: 'post',
    path: '/api/v1/admin/challenges/:id/retire',
    summary: 'Retire: any status → archived (emits challenge.retired; a repeat changes nothing)',
    tags: ['admin'],
    auth: 'admin',
    rateLimit: 'default',
    params: uuidParam,
    responses: { 200: { description: 'archived', schema: one } },
    async handler({ params, principal, deps }) {
      return transitionResult(await retireChallenge(deps, actorOf(principal), params.id));
    },
  }),
];

import type { Principal } from '../../auth/principal';
import { listChallenges, type ChallengeRow, type ChallengeSummaryRow } from '../../db/queries/challenges';
import { listEntries } from '../../db/queries/entries';
import { enterChallenge } from '../../domain/challenges/entries';
import { requireVisibleChallenge } from '../../domain/challenges/lifecycle';
import { withPublicEntryCount, withPublicEntryCounts } from '../../domain/contests/boards';
import { entriesOwnerFilter, visibleStatuses } from '../../domain/challenges/policy';
import { submissionsLeftForCaller } from '../../domain/submissions/allowance';
import { defineRoute, uuidParam } from '../route';
import type { Pagination } from '../../lib/pagination';
import {
  challengeDetailSchema,
  challengeSchema,
  createEntryBody,
  entrySchema,
  listChallengesQuery,
  listEntriesQuery,
  toChallenge,
  toChallengeDetail,
  toEntry,
  type ListChallengesQuery,
} from '../schemas/challenges';
import { envelope, pagedEnvelope } from '../schemas/common';

export function pagination(total: number, page: number, limit: number): Pagination {
  return { total, page, limit, has_more: page * limit < total };
}

/** Shared by the public and the admin listing: same filters, paging and order. */
function listFilter(principal: Principal, query: ListChallengesQuery) {
  return {
    filter: {
      statuses: visibleStatuses(principal, query.status),
      category: query.category,
      weightClassId: query.weight_class,
      format: query.format,
    },
    page: { limit: query.limit, offset: (query.page - 1) * query.limit },
  };
}

/** The public listing: no judge config is read (it can hold megabytes of program tests). */
export async function listForCaller(
  db: Parameters<typeof listChallenges>[0],
  principal: Principal,
  query: ListChallengesQuery,
): Promise<{ rows: ChallengeSummaryRow[]; pagination: Pagination }> {
  const { filter, page } = listFilter(principal, query);
  const { rows, total } = await listChallenges(db, filter, page);
  return { rows, pagination: pagination(total, query.page, query.limit) };
}

/** The operators' listing: the same filters, paging and order, with each judge config. */
export async function listWithJudgesForCaller(
  db: Parameters<typeof listChallenges>[0],
  principal: Principal,
  query: ListChallengesQuery,
): Promise<{ rows: ChallengeRow[]; pagination: Pagination }> {
  const { filter, page } = listFilter(principal, query);
  const { rows, total } = await listChallenges(db, filter, page, { withJudge: true });
  return { rows, pagination: pagination(total, query.page, query.limit) };
}

export const challengeRoutes = [
  defineRoute({
    operationId: 'listChallenges',
    method: 'get',
    path: '/api/v1/challenges',
    summary:
      'List challenges (public: active, complete, archived; operators also see drafts). Featured first, then newest.',
    tags: ['challenges'],
    auth: 'public',
    scope: 'challenge:read',
    rateLimit: 'reads',
    httpCache: true,
    query: listChallengesQuery,
    responses: { 200: { description: 'a page of challenges', schema: pagedEnvelope(challengeSchema) } },
    async handler({ query, principal, deps }) {
      const { rows, pagination } = await listForCaller(deps.db, principal, query);
      return { data: (await withPublicEntryCounts(deps.db, principal, rows)).map(toChallenge), pagination };
    },
  }),
  defineRoute({
    operationId: 'getChallenge',
    method: 'get',
    path: '/api/v1/challenges/:id',
    summary:
      'Get a challenge with the public part of its judge (`judge_public`: kind, languages, limits, visible tests and criteria; drafts are 404 except for operators)',
    tags: ['challenges'],
    auth: 'public',
    scope: 'challenge:read',
    rateLimit: 'reads',
    httpCache: true,
    params: uuidParam,
    responses: { 200: { description: 'the challenge', schema: envelope(challengeDetailSchema) } },
    async handler({ params, principal, deps }) {
      const challenge = await withPublicEntryCount(
        deps.db,
        principal,
        await requireVisibleChallenge(deps.db, principal, params.id),
      );
      return {
        data: toChallengeDetail(challenge, await submissionsLeftForCaller(deps.db, principal, challenge.id)),
      };
    },
  }),
  defineRoute({
    operationId: 'createEntry',
    method: 'post',
    path: '/api/v1/challenges/:id/entries',
    summary:
      'Enter one of your agents ("entered from the web interface"): the entry is assigned to its connector',
    tags: ['challenges'],
    auth: 'jwt',
    scope: 'challenge:enter',
    rateLimit: 'sessions',
    params: uuidParam,
    body: createEntryBody,
    responses: {
      201: { description: 'entered', schema: envelope(entrySchema) },
      200: { description: 'already entered: the existing entry', schema: envelope(entrySchema) },
    },
    async handler({ params, body, principal, deps }) {
      const { entry, created } = await enterChallenge(deps.db, principal, params.id, body.agent_id);
      return { status: created ? 201 : 200, data: toEntry(entry) };
    },
  }),
  defineRoute({
    operationId: 'listEntries',
    method: 'get',
    path: '/api/v1/challenges/:id/entries',
    summary: "A challenge's entries: operators see all, other users their own agents' entries",
    tags: ['challenges'],
    auth: 'jwt',
    rateLimit: 'reads',
    params: uuidParam,
    query: listEntriesQuery,
    responses: { 200: { description: 'a page of entries', schema: pagedEnvelope(entrySchema) } },
    async handler({ params, query, principal, deps }) {
      const ownerUserId = entriesOwnerFilter(principal);
      await requireVisibleChallenge(deps.db, principal, params.id);
      const { rows, total } = await listEntries(
        deps.db,
        { challengeId: params.id, ownerUserId },
        { limit: query.limit, offset: (query.page - 1) * query.limit },
      );
      return { data: rows.map(toEntry), pagination: pagination(total, query.page, query.limit) };
    },
  }),
];

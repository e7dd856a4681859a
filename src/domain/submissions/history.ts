import type { Pool } from 'pg';
import { notFound, validationError } from '../../errors';
import type { Pagination } from '../../lib/pagination';
import type { Principal } from '../../auth/principal';
import { historyAccess } from './policy';
import {
  listSubmissionHistory,
  type SubmissionHistoryKey,
  type SubmissionHistoryRow,
  type SubmissionStatus,
} from '../../db/queries/submissions';
import { findAgentById } from '../../db/queries/agents';
import { decodeTimeIdCursor, encodeTimeIdCursor, keysetPage } from '../../lib/keyset-cursor';
import { requireOwnedAgent } from '../identity';

export const HISTORY_DEFAULT_LIMIT = 20;
export const HISTORY_MAX_LIMIT = 100;

export interface SubmissionHistoryQuery {
  agent_id?: string;
  challenge_id?: string;
  status?: SubmissionStatus;
  limit: number;
  cursor?: string;
}

/** The operators' listing also narrows by the current score (0–100, bounds included). */
export interface AllSubmissionsQuery extends SubmissionHistoryQuery {
  min_score?: number;
  max_score?: number;
}

const invalidCursor = () =>
  validationError('query.cursor: invalid cursor (use next_cursor from the previous page)');

/** Opaque cursor: base64url of the last row's `[created_at with microseconds, id]`. */
export const encodeHistoryCursor = (key: SubmissionHistoryKey): string => encodeTimeIdCursor(key);

/** Decodes a cursor from a previous page; anything else is 400 VALIDATION_ERROR. */
export const decodeHistoryCursor = (cursor: string): SubmissionHistoryKey =>
  decodeTimeIdCursor(cursor, invalidCursor);

/** What the caller may list (policy.ts `historyAccess`), with the agent it names looked up. */
async function scopeOf(
  db: Pool,
  principal: Principal,
  agentId: string | undefined,
): Promise<{ ownerUserId?: string; agentId?: string; sandbox?: boolean }> {
  const access = historyAccess(principal, agentId);
  if (access.kind === 'scope') return access.scope;
  if (access.kind === 'anyAgent') {
    if (!(await findAgentById(db, access.agentId))) throw notFound('agent');
  } else {
    await requireOwnedAgent(db, principal, access.agentId);
  }
  return { agentId: access.agentId };
}

export async function getSubmissionHistory(
  db: Pool,
  principal: Principal,
  query: SubmissionHistoryQuery,
): Promise<{ rows: SubmissionHistoryRow[]; pagination: Pagination }> {
  const after = query.cursor ? decodeHistoryCursor(query.cursor) : null;
  const scope = await scopeOf(db, principal, query.agent_id);
  const page = await listSubmissionHistory(db, {
    ...scope,
    challengeId: query.challenge_id,
    status: query.status,
    after,
    limit: query.limit + 1,
  });
  return keysetPage(page, query.limit, (last) =>
    encodeHistoryCursor({ createdAt: last.created_at_key, id: last.id }),
  );
}

/**
 * Operators: every owner's submissions (live and sandbox), newest first, with the history's filters,
 * a score range and the cursor. An unknown agent or challenge simply lists nothing.
 */
export async function listAllSubmissions(
  db: Pool,
  query: AllSubmissionsQuery,
): Promise<{ rows: SubmissionHistoryRow[]; pagination: Pagination }> {
  const after = query.cursor ? decodeHistoryCursor(query.cursor) : null;
  if (query.min_score !== undefined && query.max_score !== undefined && query.min_score > query.max_score)
    throw validationError('query.max_score: must be at least min_score');
  const page = await listSubmissionHistory(db, {
    agentId: query.agent_id,
    challengeId: query.challenge_id,
    status: query.status,
    minScore: query.min_score,
    maxScore: query.max_score,
    after,
    limit: query.limit + 1,
  });
  return keysetPage(page, query.limit, (last) =>
    encodeHistoryCursor({ createdAt: last.created_at_key, id: last.id }),
  );
}

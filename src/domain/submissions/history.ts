import type { Pool } from 'pg';
import { ServiceError, notFound, validationError } from '../../errors';
import type { Pagination } from '../../lib/pagination';
import { isAdmin, type Principal } from '../../auth/principal';
import {
  listSubmissionHistory,
  type SubmissionHistoryKey,
  type SubmissionHistoryRow,
  type SubmissionStatus,
} from '../../db/queries/submissions';
import { findAgentById } from '../../db/queries/agents';
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

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Exactly what the query's to_char writes: UTC, microseconds. */
const MICRO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/** Opaque cursor: base64url of the last row's `[created_at with microseconds, id]`. */
export function encodeHistoryCursor(key: SubmissionHistoryKey): string {
  return Buffer.from(JSON.stringify([key.createdAt, key.id])).toString('base64url');
}

/** Decodes a cursor from a previous page; anything else is 400 VALIDATION_ERROR. */
export function decodeHistoryCursor(cursor: string): SubmissionHistoryKey {
  const invalid = () =>
    validationError('query.cursor: invalid cursor (use next_cursor from the previous page)');
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) throw invalid();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (!Array.isArray(parsed) || parsed.length !== 2) throw invalid();
  const [createdAt, id] = parsed as unknown[];
  // The regex alone admits month 13 or hour 25, which PostgreSQL would reject with an error (a 500).
  if (typeof createdAt !== 'string' || !MICRO_UTC.test(createdAt) || Number.isNaN(Date.parse(createdAt)))
    throw invalid();
  if (typeof id !== 'string' || !UUID.test(id)) throw invalid();
  return { createdAt, id };
}

/**
 * Who may list what: an API token lists its own agent (live tokens live submissions, sandbox tokens
 * sandbox ones, as Stripe keeps test and live data apart); a session JWT lists every agent its user
 * owns, or one of them with agent_id; an operator may name any agent. Another owner's agent is 404.
 */
async function scopeOf(
  db: Pool,
  principal: Principal,
  agentId: string | undefined,
): Promise<{ ownerUserId?: string; agentId?: string; sandbox?: boolean }> {
  if (principal.kind === 'apiToken') {
    if (agentId && agentId !== principal.agentId) throw notFound('agent');
    return { agentId: principal.agentId, sandbox: principal.sandbox };
  }
  if (principal.kind !== 'user') throw new ServiceError('UNAUTHORIZED', 'missing or invalid credentials');
  if (!agentId) return { ownerUserId: principal.userId };
  if (isAdmin(principal)) {
    if (!(await findAgentById(db, agentId))) throw notFound('agent');
    return { agentId };
  }
  await requireOwnedAgent(db, principal, agentId);
  return { agentId };
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
  const hasMore = page.length > query.limit;
  const rows = hasMore ? page.slice(0, query.limit) : page;
  const last = rows[rows.length - 1];
  return {
    rows,
    pagination: {
      limit: query.limit,
      has_more: hasMore,
      next_cursor: hasMore ? encodeHistoryCursor({ createdAt: last.created_at_key, id: last.id }) : null,
    },
  };
}

/**
 * What a game match page shows beside the replay (issue 41, item 3; CodinGame's and Kaggle's
 * viewers): the stderr of the seats this signed-in person may read (their own agents'; an
 * operator every seat's), as GET /api/v1/matches/{id}/logs/{agent_id} decides (policy.ts).
 * Spectators and other competitors get nothing, not even an empty panel.
 */
import type { Principal } from '../../auth/principal';
import type { Queryable } from '../../db/pool';
import { listParticipants } from '../../db/queries/match-participants';
import { findMatchLog, type MatchLogGame } from '../../db/queries/match-replays';
import { canReadMatchLogs } from './policy';

export interface SeatLog {
  agent_id: string;
  agent_name: string;
  seat: number;
  games: MatchLogGame[];
}

export interface PageMatchLogs {
  /** The viewer may read at least one seat's stderr (owner or operator). */
  readsAny: boolean;
  /** The logs themselves: only once the page may show the result (`withLogs`), else empty. */
  logs: SeatLog[];
}

/** The stderr the web session may read on this match's page; `withLogs` false while the page holds the result. */
export async function pageMatchLogs(
  db: Queryable,
  matchId: string,
  session: { userId: string; role: 'user' | 'admin'; name: string | null } | null,
  withLogs: boolean,
): Promise<PageMatchLogs> {
  if (!session) return { readsAny: false, logs: [] };
  const viewer: Principal = { kind: 'user', userId: session.userId, role: session.role, name: session.name };
  const readable = (await listParticipants(db, [matchId])).filter((p) => canReadMatchLogs(viewer, p));
  if (readable.length === 0 || !withLogs) return { readsAny: readable.length > 0, logs: [] };
  const logs = await Promise.all(
    readable.map(async (p) => ({
      agent_id: p.agent_id,
      agent_name: p.agent_name,
      seat: p.seat,
      games: (await findMatchLog(db, matchId, p.agent_id)) ?? [],
    })),
  );
  return { readsAny: true, logs };
}

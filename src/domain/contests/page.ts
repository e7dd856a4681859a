/**
 * What the challenge page shows of a fair contest, read for the person viewing it (the web
 * session, when signed in: their own questions; an operator sees all and the final board early).
 */
import type { Pool } from 'pg';
import type { Principal } from '../../auth/principal';
import { listClarifications } from '../../db/queries/clarifications';
import { finalBoard } from './boards';
import { toClarification, type Clarification } from './clarifications';
import { mayReadFinalBoard, seesAllClarifications } from './policy';
import { isRevealed, type FinalRow } from './rules';

export async function pageContestParts(
  db: Pool,
  challenge: { id: string; status: string },
  session: { userId: string; role: 'user' | 'admin'; name: string | null } | null,
): Promise<{ finalBoard: FinalRow[] | null; finalPending: number; clarifications: Clarification[] }> {
  const viewer: Principal = session
    ? { kind: 'user', userId: session.userId, role: session.role, name: session.name }
    : { kind: 'anonymous' };
  // The page shows the final board at completion (operators read it early through the API); while
  // private passes are pending it shows none of its rows.
  const showFinal = isRevealed(challenge.status) && mayReadFinalBoard(viewer, challenge.status);
  const [board, rows] = await Promise.all([
    showFinal ? finalBoard(db, challenge.id, challenge.status) : Promise.resolve(null),
    listClarifications(db, challenge.id, {
      all: seesAllClarifications(viewer),
      askedBy: session?.userId ?? null,
    }),
  ]);
  return {
    finalBoard: board?.rows ?? null,
    finalPending: board?.pending ?? 0,
    clarifications: rows.map(toClarification),
  };
}

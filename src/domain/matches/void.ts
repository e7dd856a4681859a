/**
 * An operator voids a match before it completes: POST /api/v1/admin/matches/{id}/void {reason}
 * (audit `match.void`); a finished match is 409 CONFLICT. The match is void (unrated) at once,
 * its sessions closed and its workflow told (it finishes at its next look anyway).
 */
import { withTransaction } from '../../db/pool';
import { lockMatch, type MatchRow } from '../../db/queries/matches';
import { conflict, notFound } from '../../errors';
import type { ServiceDeps } from '../../service-deps';
import { recordAudit, type Actor } from '../audit/trail';
import { finishInTransaction } from './settle';
import { signalMatchVoided } from './workflow-start';
import { storableText } from '../../lib/storable-text';

export async function voidMatch(
  deps: Pick<ServiceDeps, 'db' | 'config' | 'temporal'>,
  actor: Actor,
  matchId: string,
  reason: string,
): Promise<MatchRow> {
  const voided = await withTransaction(deps.db, async (tx) => {
    const match = await lockMatch(tx, matchId);
    if (!match) throw notFound('match');
    if (match.status === 'complete' || match.status === 'void')
      throw conflict(
        `match ${matchId} is already ${match.status}; only a scheduled or running match can be voided`,
      );
    await recordAudit(
      tx,
      actor,
      'match.void',
      { type: 'match', id: matchId },
      { reason, from: match.status },
    );
    // Validated at the edge (safeText); stored through the sanitizer like every outside text.
    return (await finishInTransaction(tx, match, 'void', storableText(reason), null))!;
  });
  await signalMatchVoided(deps, matchId);
  return voided;
}

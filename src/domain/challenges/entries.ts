/** Entries made from the web interface: an owner registers one of their agents for a challenge. */
import type { Pool } from 'pg';
import { ServiceError, notFound } from '../../errors';
import type { Principal } from '../../auth/principal';
import { databaseNow, lockChallengeById } from '../../db/queries/challenges';
import { findEntry, upsertEntry, type EntryRow } from '../../db/queries/entries';
import { withTransaction } from '../../db/pool';
import { requireOwnedAgent } from '../identity';
import { requireVisibleChallenge } from './lifecycle';
import { canSeeChallenge } from './policy';
import { acceptsEntries } from './rules';
import { isMatchFormat } from '../matches/rules';
import { bumpLeaderboardVersion } from '../../db/queries/leaderboard-versions';

/**
 * "Entered from the web interface": the owner's JWT enters one of their agents. Returns the
 * existing entry when there is one (whatever the challenge's state now); otherwise the
 * challenge must accept entries (400 CHALLENGE_NOT_ENTERABLE). The challenge row is share-locked
 * so a concurrent quarantine or retirement cannot slip between the check and the insert.
 */
export async function enterChallenge(
  db: Pool,
  principal: Principal,
  challengeId: string,
  agentId: string,
): Promise<{ entry: EntryRow; created: boolean }> {
  await requireVisibleChallenge(db, principal, challengeId);
  await requireOwnedAgent(db, principal, agentId);
  return withTransaction(db, async (tx) => {
    const challenge = await lockChallengeById(tx, challengeId, 'share');
    if (!challenge || !canSeeChallenge(principal, challenge)) throw notFound('challenge');
    const existing = await findEntry(tx, challengeId, agentId);
    if (existing) return { entry: existing, created: false };
    const verdict = acceptsEntries(challenge, await databaseNow(tx));
    if (!verdict.ok) throw new ServiceError('CHALLENGE_NOT_ENTERABLE', verdict.message);
    // A match challenge's entry is the agent's ladder entry: `waiting` for the matchmaker.
    if (!isMatchFormat(challenge.format)) return upsertEntry(tx, { challengeId, agentId, sandbox: false });
    const entered = await upsertEntry(tx, { challengeId, agentId, sandbox: false, status: 'waiting' });
    await bumpLeaderboardVersion(tx, challengeId); // the board lists entrants
    return entered;
  });
}

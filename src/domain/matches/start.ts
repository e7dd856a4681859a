/**
 * A match's start, bouts and games alike (the match workflow's first step, workflows/match.ts):
 * scheduled → running once, or void when its challenge or an agent is gone. Then a bout runs its
 * own steps (bout.ts) and a game match its own (game.ts). `snapshotOf` is what each of these
 * steps answers the workflow.
 */
import { withTransaction } from '../../db/pool';
import { findChallengeById } from '../../db/queries/challenges';
import { insertBoutEntries } from '../../db/queries/entries';
import { listParticipants } from '../../db/queries/match-participants';
import { lockMatch, markMatchRunning, type MatchRow } from '../../db/queries/matches';
import { emitEventPerOwner } from '../../events/outbox';
import { storableText } from '../../lib/storable-text';
import type { ServiceDeps } from '../../service-deps';
import { gameMatchCapMs } from '../games/rules';
import type { MatchSnapshot } from './contract';
import { boutDeadlineMs, boutMinutes } from './rules';
import { finishInTransaction } from './settle';

type Deps = Pick<ServiceDeps, 'db' | 'logger' | 'config'>;

/** The database's state of the match as the workflow reads it (`boutOver`: a bout may be ended). */
export function snapshotOf(
  deps: Pick<ServiceDeps, 'config'>,
  match: MatchRow | null,
  boutOver: boolean,
): MatchSnapshot {
  return {
    status: match ? match.status : 'missing',
    kind: match?.kind ?? 'bout',
    endsAt: match?.ends_at ? match.ends_at.toISOString() : null,
    deadlineAt: match?.deadline_at ? match.deadline_at.toISOString() : null,
    boutOver,
    pollMs: deps.config.ARENA_POLL_MS,
    weightClassId: match?.weight_class_id ?? null,
    rated: match?.rated ?? false,
  };
}

export function createMatchStartSteps(deps: Deps) {
  return {
    /**
     * scheduled → running (once): started now, ending after the bout's length; every participant's
     * bout entry `assigned` at the same moment; match.started to each owner. A match whose challenge
     * stopped being active before it started is void.
     */
    matchStart(input: { matchId: string }): Promise<MatchSnapshot> {
      return withTransaction(deps.db, async (tx) => {
        const match = await lockMatch(tx, input.matchId);
        if (!match || match.status !== 'scheduled') return snapshotOf(deps, match, false);
        const challenge = await findChallengeById(tx, match.challenge_id);
        if (!challenge || challenge.status !== 'active') {
          const voided = await finishInTransaction(
            tx,
            match,
            'void',
            storableText('the challenge is not active'),
            null,
          );
          return snapshotOf(deps, voided, true);
        }
        const participants = await listParticipants(tx, [match.id]);
        // Deleted agents are never matched: one deleted after the scheduling voids the match.
        const deleted = participants.find((p) => p.agent_deleted);
        if (deleted) {
          const voided = await finishInTransaction(
            tx,
            match,
            'void',
            storableText(`agent ${deleted.agent_id} was deleted`),
            null,
          );
          return snapshotOf(deps, voided, true);
        }
        // A game match's end is its whole-match wall cap; a bout's, its length.
        const runningMs =
          match.kind === 'game'
            ? gameMatchCapMs(challenge.judge, participants.length)
            : boutMinutes(challenge) * deps.config.ARENA_MINUTE_MS;
        // A bout's deadline runs from its start; a game match's from its slots' grant (game.ts).
        const deadlineMs = match.kind === 'bout' ? boutDeadlineMs(runningMs) : null;
        const running = (await markMatchRunning(tx, match.id, runningMs, deadlineMs))!;
        // Game matches are played by the service (no bout entries, sessions or submissions).
        if (match.kind === 'bout')
          await insertBoutEntries(tx, {
            matchId: match.id,
            challengeId: match.challenge_id,
            agentIds: participants.map((p) => p.agent_id),
          });
        await emitEventPerOwner(
          tx,
          {
            type: 'match.started',
            payload: {
              match_id: match.id,
              challenge_id: match.challenge_id,
              participants: participants.map((p) => ({ agent_id: p.agent_id })),
            },
            challengeId: match.challenge_id,
          },
          participants.map((p) => p.owner_user_id),
        );
        deps.logger.info({ matchId: match.id }, 'match started');
        return snapshotOf(deps, running, false);
      });
    },
  };
}

export type MatchStartSteps = ReturnType<typeof createMatchStartSteps>;

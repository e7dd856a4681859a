/**
 * Intake: a submission to an open session is checked (ownership, session open, quotas, the
 * Idempotency-Key's body), stored with its events in one transaction, then its workflow started.
 */
import { ServiceError, notFound, validationError } from '../../errors';
import type { Principal } from '../../auth/principal';
import { withTransaction, type Queryable } from '../../db/pool';
import { advanceSessionEntryStatus, lockEntry } from '../../db/queries/entries';
import { findChallengeRules } from '../../db/queries/challenges';
import { closeSession, findSessionById } from '../../db/queries/sessions';
import {
  countCountingDaySubmissions,
  countCountingSessionSubmissions,
  findSubmissionById,
  findSubmissionByIdempotencyKey,
  insertSubmission,
  insertSubmissionEvent,
  type SubmissionFile,
  type SubmissionRow,
} from '../../db/queries/submissions';
import { emitEvent } from '../../events/outbox';
import { storableJson, storableText } from '../../lib/storable-text';
import { nowOf, type ServiceDeps } from '../../service-deps';
import { lapseReason } from '../sessions';
import { isOwner, isOwnerOrOperator } from './policy';
import { artifactHash, DEFAULT_MAX_SUBMISSIONS_PER_SESSION, quotaRefusal, submissionRefusal } from './rules';
import { startSubmissionWorkflowSoon } from './workflow-start';

export interface CreateSubmissionInput {
  content: string;
  files?: SubmissionFile[];
  /** The body's language (id or alias), for files naming none and for `content` without files. */
  language?: string;
}

/**
 * Accepts a submission to an open session. The submission, its `received` event and the
 * submission.received outbox event are written in one transaction; the workflow is started after
 * the commit (and by the sweeper should this process die in between). With an Idempotency-Key the
 * key is stored on the row too, so even a crash before the idempotency record is written cannot
 * produce a second submission.
 */
export async function createSubmission(
  deps: Pick<ServiceDeps, 'db' | 'config' | 'temporal' | 'logger' | 'clock'>,
  principal: Principal,
  sessionId: string,
  input: CreateSubmissionInput,
  idempotencyKey: string | null,
): Promise<{ submission: SubmissionRow; created: boolean }> {
  const { db } = deps;
  const session = await findSessionById(db, sessionId);
  if (!session || !isOwner(principal, session)) throw notFound('session');
  const files = (input.files ?? []).map((f) =>
    f.language === undefined ? { path: f.path, content: f.content } : { ...f },
  );
  const language = input.language?.trim() ? input.language.trim() : null;
  const hash = artifactHash(input.content, files, language);

  const sameRequest = (existing: SubmissionRow) => {
    if (existing.session_id !== sessionId || existing.artifact_hash !== hash) {
      throw new ServiceError(
        'IDEMPOTENCY_KEY_REUSED',
        'this Idempotency-Key was already used for a different submission',
      );
    }
    return { submission: existing, created: false };
  };

  if (idempotencyKey) {
    const existing = await findSubmissionByIdempotencyKey(db, session.agent_id, idempotencyKey);
    if (existing) return sameRequest(existing);
  }

  const challenge = await findChallengeRules(db, session.challenge_id);
  const refused = challenge
    ? submissionRefusal(
        { kind: challenge.judge_kind, languages: challenge.judge_languages, entry: challenge.judge_entry },
        { content: input.content, files, language },
      )
    : null;
  if (refused) throw validationError(refused);
  const lapsed = lapseReason(session, challenge);
  if (lapsed) await closeSession(db, session.id, lapsed);
  if (session.status !== 'open' || lapsed)
    throw new ServiceError(
      'SESSION_CLOSED',
      `session is closed (${lapsed ?? session.close_reason ?? 'closed'})`,
    );

  let outcome: { submission: SubmissionRow; created: boolean };
  try {
    outcome = await withTransaction(db, async (tx) => {
      // One writer per (challenge, agent) at a time: the quota counts below cannot be raced past.
      await lockEntry(tx, session.challenge_id, session.agent_id);
      if (idempotencyKey) {
        const existing = await findSubmissionByIdempotencyKey(tx, session.agent_id, idempotencyKey);
        if (existing) return sameRequest(existing);
      }
      const current = await findSessionById(tx, sessionId);
      if (!current || current.status !== 'open')
        throw new ServiceError('SESSION_CLOSED', 'session is closed');

      const limits = {
        perSession: challenge!.max_submissions_per_session ?? DEFAULT_MAX_SUBMISSIONS_PER_SESSION,
        perDay: challenge!.max_submissions_per_day,
      };
      const counted = {
        inSession: await countCountingSessionSubmissions(tx, sessionId),
        today:
          limits.perDay === null
            ? null
            : await countCountingDaySubmissions(tx, session.agent_id, session.challenge_id),
      };
      const refusal = quotaRefusal(limits, counted);
      if (refusal) throw new ServiceError('SUBMISSION_LIMIT_REACHED', refusal);

      const row = await insertSubmission(tx, {
        sessionId,
        challengeId: session.challenge_id,
        agentId: session.agent_id,
        // The API refused NUL and lone surrogates already; the sanitizer is what the query accepts.
        content: storableText(input.content),
        files: storableJson(files),
        language,
        artifactHash: hash,
        idempotencyKey,
        sandbox: session.sandbox,
      });
      await insertSubmissionEvent(tx, {
        submissionId: row.id,
        run: 0,
        status: 'received',
        message: storableText('submission received'),
      });
      await emitEvent(tx, {
        type: 'submission.received',
        payload: {
          submission_id: row.id,
          challenge_id: row.challenge_id,
          agent_id: row.agent_id,
          submission_status: 'received',
        },
        ownerUserId: session.owner_user_id,
        challengeId: row.challenge_id,
        sandbox: row.sandbox,
      });
      await advanceSessionEntryStatus(tx, session.id, 'submitted');
      return { submission: { ...row, owner_user_id: session.owner_user_id }, created: true };
    });
  } catch (err) {
    // The same key used concurrently on another challenge's session (another entry lock).
    const e = err as { code?: string; constraint?: string };
    if (
      idempotencyKey &&
      e?.code === '23505' &&
      e.constraint === 'submissions_agent_id_idempotency_key_key'
    ) {
      const existing = await findSubmissionByIdempotencyKey(db, session.agent_id, idempotencyKey);
      if (existing) return sameRequest(existing);
    }
    throw err;
  }

  if (outcome.created) {
    const started = await startSubmissionWorkflowSoon(deps, outcome.submission);
    if (started) outcome.submission.workflow_started_at = nowOf(deps);
  }
  return outcome;
}

/** The submission if the caller owns it or is an operator; otherwise 404 (ids do not leak). */
export async function loadSubmissionFor(
  db: Queryable,
  principal: Principal,
  submissionId: string,
): Promise<SubmissionRow> {
  const submission = await findSubmissionById(db, submissionId);
  if (!submission || !isOwnerOrOperator(principal, submission)) throw notFound('submission');
  return submission;
}

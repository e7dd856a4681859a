/**
 * Clarifications and announcements (DESIGN, "Fair contests"): a signed-in user or an API token
 * asks (the asker is its owner); operators answer privately or publicly, and announce. Everyone
 * sees the public ones and announcements; the asker its own questions; operators all.
 */
import type { Pool } from 'pg';
import { principalUserId, type Principal } from '../../auth/principal';
import { withTransaction } from '../../db/pool';
import { findChallengeById } from '../../db/queries/challenges';
import {
  answerClarification,
  findClarification,
  insertAnnouncement,
  insertQuestion,
  listClarifications,
  type ClarificationRow,
} from '../../db/queries/clarifications';
import { unauthorized, notFound, validationError } from '../../errors';
import { storableText, type StorableText } from '../../lib/storable-text';
import { recordAudit, type Actor } from '../audit/trail';
import { checkTypedText } from '../agents/rules';
import { canSeeChallenge } from '../challenges/policy';
import { seesAllClarifications } from './policy';
import { CLARIFICATION_LIMITS } from './rules';

export interface Clarification {
  id: string;
  kind: 'question' | 'announcement';
  question: string | null;
  answer: string | null;
  public: boolean;
  asked_at: string;
  answered_at: string | null;
}

export function toClarification(row: ClarificationRow): Clarification {
  return {
    id: row.id,
    kind: row.kind,
    question: row.question,
    answer: row.answer,
    public: row.public,
    asked_at: row.asked_at.toISOString(),
    answered_at: row.answered_at ? row.answered_at.toISOString() : null,
  };
}

/** Typed text: the agent-name rule (DESIGN "Whatever a program writes is data"), lines allowed. */
function cleanText(text: string, field: string, max: number): StorableText {
  if (text.trim().length === 0) throw validationError(`body.${field}: must not be blank`);
  const checked = checkTypedText(text, { maxChars: max, multiline: true });
  if (!checked.ok) throw validationError(`body.${field}: ${checked.reason}`);
  // What a person typed is outside text (the pipeline refused NUL and lone surrogates already).
  return storableText(checked.text);
}

async function requireChallenge(db: Pool, principal: Principal, challengeId: string) {
  const challenge = await findChallengeById(db, challengeId);
  if (!challenge || !canSeeChallenge(principal, challenge)) throw notFound('challenge');
  return challenge;
}

export async function askQuestion(
  db: Pool,
  principal: Principal,
  challengeId: string,
  question: string,
): Promise<Clarification> {
  const askedBy = principalUserId(principal);
  if (askedBy === null) throw unauthorized();
  await requireChallenge(db, principal, challengeId);
  const text = cleanText(question, 'question', CLARIFICATION_LIMITS.questionChars);
  const row = await insertQuestion(db, { challengeId, question: text, askedBy });
  return toClarification(row!);
}

export async function listChallengeClarifications(
  db: Pool,
  principal: Principal,
  challengeId: string,
): Promise<Clarification[]> {
  await requireChallenge(db, principal, challengeId);
  const rows = await listClarifications(db, challengeId, {
    all: seesAllClarifications(principal),
    askedBy: principalUserId(principal),
  });
  return rows.map(toClarification);
}

export async function answerQuestion(
  db: Pool,
  actor: Actor,
  clarificationId: string,
  input: { answer: string; public: boolean },
): Promise<Clarification> {
  const answer = cleanText(input.answer, 'answer', CLARIFICATION_LIMITS.answerChars);
  return withTransaction(db, async (tx) => {
    const found = await findClarification(tx, clarificationId, true);
    if (!found || found.kind !== 'question') throw notFound('clarification');
    const row = await answerClarification(tx, {
      id: found.id,
      answer,
      public: input.public,
      by: actor.userId,
    });
    await recordAudit(
      tx,
      actor,
      'clarification.answer',
      { type: 'challenge', id: found.challenge_id },
      { clarification_id: found.id, public: input.public, answered_before: found.answered_at !== null },
    );
    return toClarification(row!);
  });
}

export async function announce(
  db: Pool,
  actor: Actor,
  challengeId: string,
  text: string,
): Promise<Clarification> {
  const body = cleanText(text, 'text', CLARIFICATION_LIMITS.answerChars);
  return withTransaction(db, async (tx) => {
    const challenge = await findChallengeById(tx, challengeId);
    if (!challenge) throw notFound('challenge');
    const row = await insertAnnouncement(tx, { challengeId, text: body, by: actor.userId });
    await recordAudit(
      tx,
      actor,
      'challenge.announce',
      { type: 'challenge', id: challengeId },
      {
        clarification_id: row!.id,
      },
    );
    return toClarification(row!);
  });
}

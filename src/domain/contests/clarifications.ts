/**
 * Clarifications and announcements (DESIGN, "Fair contests"): a signed-in user or an API token
 * asks (the asker is its owner); operators answer privately or publicly, and announce. Everyone
 * sees the public ones and announcements; the asker its own questions; operators all.
 */
import { principalUserId, type Principal } from '../../auth/principal';
import {
  sqlClarificationStore,
  type ClarificationRow,
  type ClarificationStore,
} from '../../db/queries/clarifications';
import type { AuditAction } from '../../db/queries/audit-records';
import { unauthorized, notFound, validationError } from '../../errors';
import { storableText, type StorableText } from '../../lib/storable-text';
import type { ServiceDeps } from '../../service-deps';
import type { Actor } from '../audit/trail';
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

/** What the operations need: their store (the SQL one on `db` unless the deps carry another). */
export type ClarificationDeps = Pick<ServiceDeps, 'db' | 'stores'>;

const storeOf = (deps: ClarificationDeps): ClarificationStore =>
  deps.stores?.clarifications ?? sqlClarificationStore(deps.db);

async function requireChallenge(store: ClarificationStore, principal: Principal, challengeId: string) {
  const challenge = await store.findChallenge(challengeId);
  if (!challenge || !canSeeChallenge(principal, challenge)) throw notFound('challenge');
  return challenge;
}

/** An operator's action on a challenge's clarifications, in the audit trail (src/domain/audit/trail.ts). */
function audit(
  store: ClarificationStore,
  actor: Actor,
  action: AuditAction,
  challengeId: string,
  detail: Record<string, unknown>,
) {
  return store.insertAuditRecord({
    actorUserId: actor.userId,
    action,
    targetType: 'challenge',
    targetId: challengeId,
    detail,
  });
}

export async function askQuestion(
  deps: ClarificationDeps,
  principal: Principal,
  challengeId: string,
  question: string,
): Promise<Clarification> {
  const store = storeOf(deps);
  const askedBy = principalUserId(principal);
  if (askedBy === null) throw unauthorized();
  await requireChallenge(store, principal, challengeId);
  const text = cleanText(question, 'question', CLARIFICATION_LIMITS.questionChars);
  const row = await store.insertQuestion({ challengeId, question: text, askedBy });
  return toClarification(row!);
}

export async function listChallengeClarifications(
  deps: ClarificationDeps,
  principal: Principal,
  challengeId: string,
): Promise<Clarification[]> {
  const store = storeOf(deps);
  await requireChallenge(store, principal, challengeId);
  const rows = await store.listClarifications(challengeId, {
    all: seesAllClarifications(principal),
    askedBy: principalUserId(principal),
  });
  return rows.map(toClarification);
}

export async function answerQuestion(
  deps: ClarificationDeps,
  actor: Actor,
  clarificationId: string,
  input: { answer: string; public: boolean },
): Promise<Clarification> {
  const answer = cleanText(input.answer, 'answer', CLARIFICATION_LIMITS.answerChars);
  return storeOf(deps).transaction(async (tx) => {
    const found = await tx.findClarification(clarificationId, true);
    if (!found || found.kind !== 'question') throw notFound('clarification');
    const row = await tx.answerClarification({
      id: found.id,
      answer,
      public: input.public,
      by: actor.userId,
    });
    await audit(tx, actor, 'clarification.answer', found.challenge_id, {
      clarification_id: found.id,
      public: input.public,
      answered_before: found.answered_at !== null,
    });
    return toClarification(row!);
  });
}

export async function announce(
  deps: ClarificationDeps,
  actor: Actor,
  challengeId: string,
  text: string,
): Promise<Clarification> {
  const body = cleanText(text, 'text', CLARIFICATION_LIMITS.answerChars);
  return storeOf(deps).transaction(async (tx) => {
    const challenge = await tx.findChallenge(challengeId);
    if (!challenge) throw notFound('challenge');
    const row = await tx.insertAnnouncement({ challengeId, text: body, by: actor.userId });
    await audit(tx, actor, 'challenge.announce', challengeId, { clarification_id: row!.id });
    return toClarification(row!);
  });
}

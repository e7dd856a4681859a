/**
 * The webhook feature's decisions, pure (unit-tested in test/unit/domain/webhooks/rules.test.ts): what an
 * attempt's outcome means for its delivery and its subscription, and when the health workflow
 * must hear of it. The schedule itself (attempts, delays, the disable threshold) is the delivery
 * workflow's contract (contract.ts).
 */
import { REPLACED_NOTE, type StorableText, storableText } from '../../lib/storable-text';
import type { DeliverAttemptInput, DeliverAttemptResult } from './contract';

/** Characters of a receiver's answer kept with an attempt. */
export const STORED_EXCERPT_CHARS = 1_000;

/**
 * A receiver's answer as an attempt keeps it: its first STORED_EXCERPT_CHARS characters (never
 * half a surrogate pair), ending with REPLACED_NOTE when bytes were replaced (DESIGN: a shown
 * excerpt says so); null for no answer or an empty one.
 */
export function storedExcerpt(excerpt: string | null, replaced: boolean): StorableText | null {
  if (!excerpt) return null;
  const max = STORED_EXCERPT_CHARS;
  const end = excerpt.length > max && /[\uD800-\uDBFF]/.test(excerpt[max - 1]) ? max - 1 : max;
  const kept = excerpt.slice(0, end);
  return storableText(replaced ? `${kept}\n${REPLACED_NOTE}` : kept);
}

/** A success is signalled to the health workflow while a failure this recent may not be counted in failure_count yet. */
export const RECENT_FAILURE_WINDOW_MS = 10 * 60_000;

export interface AttemptVerdict extends Pick<DeliverAttemptResult, 'final' | 'deliveryStatus'> {
  /** Set when the subscription must be disabled at once (its generation's), with the reason shown to its owner. */
  disableSubscription: string | null;
}

/**
 * What an attempt's outcome means: a 2xx delivers; 410 Gone dead-letters the delivery and disables
 * the subscription at once (the receiver said it is gone for good); any other failure retries
 * while attempts are left, then dead-letters.
 */
export function attemptVerdict(
  attempt: Pick<DeliverAttemptInput, 'attemptNumber' | 'totalAttempts'>,
  ok: boolean,
  gone: boolean,
): AttemptVerdict {
  if (ok) return { final: true, deliveryStatus: 'delivered', disableSubscription: null };
  if (gone)
    return {
      final: true,
      deliveryStatus: 'dead_letter',
      disableSubscription: 'the receiver answered 410 Gone',
    };
  if (attempt.attemptNumber >= attempt.totalAttempts)
    return { final: true, deliveryStatus: 'dead_letter', disableSubscription: null };
  return { final: false, deliveryStatus: 'retrying', disableSubscription: null };
}

/** The health workflow counts each attempt once, by this key. */
export const attemptOutcomeKey = (
  attempt: Pick<DeliverAttemptInput, 'deliveryId' | 'series' | 'attemptNumber'>,
): string => `${attempt.deliveryId}:${attempt.series}:${attempt.attemptNumber}`;

/**
 * Failures always reach the health workflow. A success only matters when a count may be open: the
 * persisted count is not 0, or a failure happened recently enough that its count may not be
 * persisted yet. A healthy subscription thus costs the health workflow nothing.
 */
export function mayChangeHealth(
  ok: boolean,
  subscription: { failure_count: number; last_failure_at: Date | null },
  now: Date,
): boolean {
  if (!ok || subscription.failure_count > 0) return true;
  return (
    subscription.last_failure_at !== null &&
    now.getTime() - subscription.last_failure_at.getTime() < RECENT_FAILURE_WINDOW_MS
  );
}

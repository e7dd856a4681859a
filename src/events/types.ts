import { z } from 'zod';

/**
 * Every event type the spec names anywhere (DESIGN.md: all of them are accepted for
 * subscriptions and all are emitted). The webhook module's schemas build on this list.
 */
export const EVENT_TYPES = [
  'result.finalized',
  'submission.completed',
  'submission.received',
  'submission.queued',
  'submission.failed',
  'challenge.started',
  'challenge.ended',
  'challenge.published',
  'challenge.quarantined',
  'challenge.retired',
  'session.created',
  'breakdown.generated',
  // The arena (DESIGN "Matches between agents"): one event per participant's owner.
  'match.started',
  'match.completed',
] as const;

export const eventTypeSchema = z.enum(EVENT_TYPES);
export type EventType = z.infer<typeof eventTypeSchema>;

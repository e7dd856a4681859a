/**
 * Webhook event types and the exact JSON body of each delivery.
 *
 * Accepted (and emitted) types: every type the spec names anywhere (DESIGN.md, Webhooks).
 *
 * DECISION (body shapes). Every body starts with `id` (the delivery id), `event_type` and `timestamp`
 * (ISO 8601, UTC, when the event happened). For the five types the spec shows, every field it shows is
 * kept, in its order; `id` and `timestamp` are added where the spec's row lacks them (additive). The
 * other types use `{id, event_type, timestamp, data}` (DESIGN.md). `data` holds exactly the fields below;
 * anything else in the outbox payload is dropped, so internal fields cannot leak to receivers.
 *
 * | event_type            | top level (besides id, event_type, timestamp) | data                                                        |
 * |-----------------------|-----------------------------------------------|-------------------------------------------------------------|
 * | result.finalized      | submission_id, challenge_id                   | submission_id, final_score (0-100), result_state (scored / failed / disqualified), challenge_id |
 * | submission.completed  | submission_id                                 | submission_id, submission_status: "completed" (spec text; the REST enum says complete) |
 * | submission.received   |                                               | submission_id, challenge_id, agent_id, submission_status: "received" |
 * | submission.queued     |                                               | submission_id, challenge_id, agent_id, submission_status: "queued" |
 * | submission.failed     |                                               | submission_id, challenge_id, agent_id, submission_status: "failed", reason (string or null) |
 * | challenge.started     |                                               | challenge_id, status, starts_at (date-time or null)         |
 * | challenge.ended       |                                               | challenge_id, status, ends_at (date-time or null)           |
 * | challenge.published   | challenge_id                                  | challenge_id, status                                        |
 * | challenge.quarantined |                                               | challenge_id, reason                                        |
 * | challenge.retired     |                                               | challenge_id                                                |
 * | session.created       |                                               | session_id, challenge_id, agent_id, expires_at (date-time or null) |
 * | breakdown.generated   |                                               | submission_id, challenge_id (the breakdown itself is audience-gated: fetch it via GET /submissions/{id}/breakdown) |
 * | webhook.test          |                                               | subscription_id, message (only sent by the test operation; not subscribable) |
 *
 * The payload passed to `buildEventBody` is the domain outbox's loosely typed record; it is validated per
 * type (uuids, enums, date-times as ISO strings or Date) and `InvalidEventPayloadError` is thrown when it
 * does not fit: that is a bug in the emitter, not a receiver problem.
 *
 * Build the body once per delivery, serialise it once (JSON.stringify) and store that string: every
 * attempt and every replay must send (and sign) the same bytes.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { EVENT_TYPES } from '../events/types';
import { isValidDeliveryId } from './signatures';

/** The one list of event types lives in src/events/types.ts (emitters and subscriptions share it). */
export const WEBHOOK_EVENT_TYPES = EVENT_TYPES;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export const webhookEventTypeSchema = z.enum(WEBHOOK_EVENT_TYPES);

/** Sent by POST /webhooks/{id}/test only; deliberately not in WEBHOOK_EVENT_TYPES. */
export const WEBHOOK_TEST_EVENT_TYPE = 'webhook.test';

export interface WebhookEventBody {
  id: string;
  event_type: WebhookEventType | typeof WEBHOOK_TEST_EVENT_TYPE;
  timestamp: string;
  submission_id?: string;
  challenge_id?: string;
  data: Record<string, unknown>;
}

export interface EventDelivery {
  id: string;
  eventType: string;
  timestamp: Date;
  payload: Record<string, unknown>;
}

export class InvalidEventPayloadError extends Error {
  override readonly name = 'InvalidEventPayloadError';
  constructor(
    message: string,
    readonly issues: z.ZodIssue[] = [],
  ) {
    super(message);
  }
}

/** Opaque delivery id: `whd_` + 32 hex characters. Also the Standard Webhooks `webhook-id`. */
export function newDeliveryId(): string {
  return `whd_${randomUUID().replace(/-/g, '')}`;
}

const uuid = z.string().uuid();
const challengeStatus = z.enum(['draft', 'active', 'complete', 'archived']);
const resultState = z.enum(['scored', 'failed', 'disqualified']);
/** Outbox payloads come from JSON (strings) or straight from code (Date); both leave as UTC ISO strings. */
const dateTime = z
  .union([z.date(), z.string().datetime({ offset: true })])
  .transform((value) => (value instanceof Date ? value : new Date(value)).toISOString());

type TopLevelField = 'submission_id' | 'challenge_id';

interface EventShape {
  /** Validates the outbox payload and produces `data` (only the listed fields, in this order). */
  data: z.ZodType<Record<string, unknown>, z.ZodTypeDef, unknown>;
  /** Fields of `data` repeated at the top level, as the spec shows for its types. */
  topLevel: readonly TopLevelField[];
}

function submissionProgress(status: 'received' | 'queued') {
  return z
    .object({ submission_id: uuid, challenge_id: uuid, agent_id: uuid })
    .transform((p) => ({ ...p, submission_status: status }));
}

/** The single source of truth for body shapes; keep the table at the top of this file in step. */
const EVENT_SHAPES: Record<WebhookEventType, EventShape> = {
  'result.finalized': {
    data: z.object({
      submission_id: uuid,
      final_score: z.number().finite().min(0).max(100),
      result_state: resultState,
      challenge_id: uuid,
    }),
    topLevel: ['submission_id', 'challenge_id'],
  },
  'submission.completed': {
    // The spec shows the text "completed"; whatever status the outbox carries is not passed on.
    data: z
      .object({ submission_id: uuid })
      .transform((p) => ({ submission_id: p.submission_id, submission_status: 'completed' })),
    topLevel: ['submission_id'],
  },
  'submission.received': { data: submissionProgress('received'), topLevel: [] },
  'submission.queued': { data: submissionProgress('queued'), topLevel: [] },
  'submission.failed': {
    data: z
      .object({
        submission_id: uuid,
        challenge_id: uuid,
        agent_id: uuid,
        reason: z.string().max(1000).nullable().default(null),
      })
      .transform((p) => ({
        submission_id: p.submission_id,
        challenge_id: p.challenge_id,
        agent_id: p.agent_id,
        submission_status: 'failed',
        reason: p.reason,
      })),
    topLevel: [],
  },
  'challenge.started': {
    data: z.object({ challenge_id: uuid, status: challengeStatus, starts_at: dateTime.nullable() }),
    topLevel: [],
  },
  'challenge.ended': {
    data: z.object({ challenge_id: uuid, status: challengeStatus, ends_at: dateTime.nullable() }),
    topLevel: [],
  },
  'challenge.published': {
    data: z.object({ challenge_id: uuid, status: challengeStatus }),
    topLevel: ['challenge_id'],
  },
  'challenge.quarantined': {
    data: z.object({ challenge_id: uuid, reason: z.string().max(1000) }),
    topLevel: [],
  },
  'challenge.retired': {
    data: z.object({ challenge_id: uuid }),
    topLevel: [],
  },
  'session.created': {
    data: z.object({ session_id: uuid, challenge_id: uuid, agent_id: uuid, expires_at: dateTime.nullable() }),
    topLevel: [],
  },
  'breakdown.generated': {
    data: z.object({ submission_id: uuid, challenge_id: uuid }),
    topLevel: [],
  },
};

/** The delivery body for one event; throws InvalidEventPayloadError when the input does not fit. */
export function buildEventBody(delivery: EventDelivery): WebhookEventBody {
  const eventType = webhookEventTypeSchema.safeParse(delivery.eventType);
  if (!eventType.success) {
    throw new InvalidEventPayloadError(`unknown webhook event type ${JSON.stringify(delivery.eventType)}`);
  }
  const shape = EVENT_SHAPES[eventType.data];
  const data = shape.data.safeParse(delivery.payload);
  if (!data.success) {
    const detail = data.error.issues
      .map((i) => `${i.path.join('.') || '(payload)'}: ${i.message}`)
      .join('; ');
    throw new InvalidEventPayloadError(`invalid ${eventType.data} payload: ${detail}`, data.error.issues);
  }

  const body: WebhookEventBody = envelope(delivery.id, eventType.data, delivery.timestamp);
  for (const field of shape.topLevel) body[field] = data.data[field] as string;
  body.data = data.data;
  return body;
}

/** Body of the test operation's delivery. */
export function buildTestEventBody(input: {
  id: string;
  timestamp: Date;
  subscriptionId: string;
}): WebhookEventBody {
  const body = envelope(input.id, WEBHOOK_TEST_EVENT_TYPE, input.timestamp);
  body.data = {
    subscription_id: input.subscriptionId,
    message: 'Test delivery from the challenge service. No action is needed.',
  };
  return body;
}

/** `data` is assigned last by the callers so that it is the last key of the serialised body. */
function envelope(id: string, eventType: WebhookEventBody['event_type'], timestamp: Date): WebhookEventBody {
  if (!isValidDeliveryId(id)) {
    throw new InvalidEventPayloadError(`invalid delivery id ${JSON.stringify(id)}`);
  }
  if (!(timestamp instanceof Date) || Number.isNaN(timestamp.getTime())) {
    throw new InvalidEventPayloadError('event timestamp is not a valid Date');
  }
  return { id, event_type: eventType, timestamp: timestamp.toISOString() } as WebhookEventBody;
}

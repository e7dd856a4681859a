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
 * | match.started         |                                               | match_id, challenge_id, participants [{agent_id}]            |
 * | match.completed       |                                               | match_id, challenge_id, result_id, rated, placements [{agent_id, rank, outcome, score}] |
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
const matchOutcome = z.enum(['win', 'loss', 'draw', 'forfeit']);
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
  'match.started': {
    data: z.object({
      match_id: uuid,
      challenge_id: uuid,
      participants: z.array(z.object({ agent_id: uuid })),
    }),
    topLevel: [],
  },
  'match.completed': {
    data: z.object({
      match_id: uuid,
      challenge_id: uuid,
      result_id: uuid,
      rated: z.boolean(),
      placements: z.array(
        z.object({
          agent_id: uuid,
          rank: z.number().int().nullable(),
          outcome: matchOutcome.nullable(),
          score: z.number().finite().nullable(),
        }),
      ),
    }),
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

// ---- the catalog receivers read (OpenAPI `webhooks`, src/api/webhook-catalog.ts) -----------------

const deliveredTime = z.string().datetime().describe('ISO 8601, UTC');
const submissionStatus = <S extends string>(status: S, note?: string) =>
  z.literal(status).describe(note ?? `always "${status}"`);

/**
 * `data` as delivered, per type (the output side of EVENT_SHAPES). Kept in step with the shapes by
 * test/unit/events/webhook-catalog.test.ts: every catalog sample's built body parses strictly here.
 */
const DELIVERED_DATA: Record<WebhookEventType, z.AnyZodObject> = {
  'result.finalized': z.object({
    submission_id: uuid,
    final_score: z.number().min(0).max(100),
    result_state: resultState,
    challenge_id: uuid,
  }),
  'submission.completed': z.object({
    submission_id: uuid,
    submission_status: submissionStatus(
      'completed',
      'always "completed", as the spec shows it; the REST API\'s submission_status enum says "complete" for the same state',
    ),
  }),
  'submission.received': z.object({
    submission_id: uuid,
    challenge_id: uuid,
    agent_id: uuid,
    submission_status: submissionStatus('received'),
  }),
  'submission.queued': z.object({
    submission_id: uuid,
    challenge_id: uuid,
    agent_id: uuid,
    submission_status: submissionStatus('queued'),
  }),
  'submission.failed': z.object({
    submission_id: uuid,
    challenge_id: uuid,
    agent_id: uuid,
    submission_status: submissionStatus('failed'),
    reason: z.string().nullable(),
  }),
  'challenge.started': z.object({
    challenge_id: uuid,
    status: challengeStatus,
    starts_at: deliveredTime.nullable(),
  }),
  'challenge.ended': z.object({
    challenge_id: uuid,
    status: challengeStatus,
    ends_at: deliveredTime.nullable(),
  }),
  'challenge.published': z.object({ challenge_id: uuid, status: challengeStatus }),
  'challenge.quarantined': z.object({ challenge_id: uuid, reason: z.string() }),
  'challenge.retired': z.object({ challenge_id: uuid }),
  'session.created': z.object({
    session_id: uuid,
    challenge_id: uuid,
    agent_id: uuid,
    expires_at: deliveredTime.nullable(),
  }),
  'breakdown.generated': z.object({ submission_id: uuid, challenge_id: uuid }),
  'match.started': z.object({
    match_id: uuid,
    challenge_id: uuid,
    participants: z.array(z.object({ agent_id: uuid }).strict()),
  }),
  'match.completed': z.object({
    match_id: uuid,
    challenge_id: uuid,
    result_id: uuid,
    rated: z.boolean(),
    placements: z.array(
      z
        .object({
          agent_id: uuid,
          rank: z.number().int().nullable(),
          outcome: matchOutcome.nullable().describe('null when an operator voided the match before its end'),
          score: z.number().nullable(),
        })
        .strict(),
    ),
  }),
};

/** The whole delivered body of one event type: `{id, event_type, timestamp, [top-level ids], data}`. */
export function deliveredBodySchema(type: WebhookEventType): z.AnyZodObject {
  const shape: z.ZodRawShape = {
    id: z
      .string()
      .regex(/^whd_[0-9a-f]{32}$/)
      .describe('the delivery id (also X-Svc-Delivery-ID and webhook-id)'),
    event_type: z.literal(type),
    timestamp: deliveredTime.describe('when the event happened (ISO 8601, UTC)'),
  };
  for (const field of EVENT_SHAPES[type].topLevel) shape[field] = uuid.describe(`repeats data.${field}`);
  shape.data = DELIVERED_DATA[type];
  return z.object(shape).strict();
}

const SAMPLE_SUBMISSION = '8d0c3b6e-2f4a-4c1e-9b7d-5a6f3e2c1d0b';
const SAMPLE_CHALLENGE = 'c41f7a2b-9e3d-4b8c-a6f1-0d2e5b7c9a13';
const SAMPLE_AGENT = '5e9b1d47-3c2a-4f6e-8b0d-7a1c9e4f2b68';
const SAMPLE_OPPONENT = '9a2c4e6f-1b3d-4f5a-8c7e-2d4f6a8b0c1e';
const SAMPLE_MATCH = 'e7b3a1d9-5c2f-4a8e-9d1b-6f3c8a2e4b70';

/** What each event means and a realistic outbox payload, built into the catalog's example bodies. */
export const EVENT_CATALOG: Record<WebhookEventType, { summary: string; payload: Record<string, unknown> }> =
  {
    'result.finalized': {
      summary: 'Judging completed and the final score is stored (again after a rejudge).',
      payload: {
        submission_id: SAMPLE_SUBMISSION,
        final_score: 87.5,
        result_state: 'scored',
        challenge_id: SAMPLE_CHALLENGE,
      },
    },
    'submission.completed': {
      summary: 'A submission finished the judging pipeline (its result is stored).',
      payload: { submission_id: SAMPLE_SUBMISSION },
    },
    'submission.received': {
      summary: 'A submission was accepted and stored; judging starts next.',
      payload: { submission_id: SAMPLE_SUBMISSION, challenge_id: SAMPLE_CHALLENGE, agent_id: SAMPLE_AGENT },
    },
    'submission.queued': {
      summary: 'A submission waits for a judge (also when an operator starts a rejudge).',
      payload: { submission_id: SAMPLE_SUBMISSION, challenge_id: SAMPLE_CHALLENGE, agent_id: SAMPLE_AGENT },
    },
    'submission.failed': {
      summary: 'Judging could not produce a result (the reason says why).',
      payload: {
        submission_id: SAMPLE_SUBMISSION,
        challenge_id: SAMPLE_CHALLENGE,
        agent_id: SAMPLE_AGENT,
        reason: 'the grader answered 502 three times',
      },
    },
    'challenge.started': {
      summary: 'An active challenge reached its starts_at (or was published without one).',
      payload: { challenge_id: SAMPLE_CHALLENGE, status: 'active', starts_at: '2026-11-24T14:00:00.000Z' },
    },
    'challenge.ended': {
      summary: 'An active challenge reached its ends_at and is now complete.',
      payload: { challenge_id: SAMPLE_CHALLENGE, status: 'complete', ends_at: '2026-11-25T14:00:00.000Z' },
    },
    'challenge.published': {
      summary: 'An operator published a challenge (it is active).',
      payload: { challenge_id: SAMPLE_CHALLENGE, status: 'active' },
    },
    'challenge.quarantined': {
      summary: 'An operator quarantined an active challenge (hidden and not enterable; back to draft).',
      payload: { challenge_id: SAMPLE_CHALLENGE, reason: 'a hidden test leaked in the judge config' },
    },
    'challenge.retired': {
      summary: 'A challenge was retired (archived).',
      payload: { challenge_id: SAMPLE_CHALLENGE },
    },
    'session.created': {
      summary: "An agent's session on a challenge was opened.",
      payload: {
        session_id: '0b7e4c2a-6d1f-4a9e-b3c5-8f2d1e7a6c40',
        challenge_id: SAMPLE_CHALLENGE,
        agent_id: SAMPLE_AGENT,
        expires_at: '2026-11-24T14:30:00.000Z',
      },
    },
    'breakdown.generated': {
      summary:
        'The score breakdown of a judged submission is ready (fetch it with GET /api/v1/submissions/{id}/breakdown; its content depends on who asks).',
      payload: { submission_id: SAMPLE_SUBMISSION, challenge_id: SAMPLE_CHALLENGE },
    },
    'match.started': {
      summary:
        "A match your agent plays in started: the bout's assignment is waiting for each participant (sent to each participant's owner once).",
      payload: {
        match_id: SAMPLE_MATCH,
        challenge_id: SAMPLE_CHALLENGE,
        participants: [{ agent_id: SAMPLE_AGENT }, { agent_id: SAMPLE_OPPONENT }],
      },
    },
    'match.completed': {
      summary:
        'A match your agent played in finished: placements (rank, outcome, score), whether it was rated, and its result id for GET /api/v1/results/{id}; a void match has result_state void there.',
      payload: {
        match_id: SAMPLE_MATCH,
        challenge_id: SAMPLE_CHALLENGE,
        result_id: '3f6a9c1e-7b2d-4e8f-a015-c4d92b7e6a31',
        rated: true,
        placements: [
          { agent_id: SAMPLE_AGENT, rank: 1, outcome: 'win', score: 92 },
          { agent_id: SAMPLE_OPPONENT, rank: 2, outcome: 'loss', score: 64.5 },
        ],
      },
    },
  };

/** A realistic body of each type, made by the real builder (so it is exactly what a receiver gets). */
export function sampleEventBody(type: WebhookEventType): WebhookEventBody {
  const n = WEBHOOK_EVENT_TYPES.indexOf(type);
  return buildEventBody({
    id: `whd_${(0x7c1e9a0f + n).toString(16)}3b5d4e2a8c6f0b1d9e3a5c7f`,
    eventType: type,
    timestamp: new Date(Date.UTC(2026, 10, 24, 14, 3, 27, 512) + n * 61_000),
    payload: EVENT_CATALOG[type].payload,
  });
}

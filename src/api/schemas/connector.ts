import { z } from 'zod';
import { isoDate, safeText } from './common';

import {
  IDLE_REASONS,
  LIVE_EVENT_TYPES,
  type FeedItem,
  type LiveEvent,
  type StreamRequest,
} from '../../wire/connector';

const uuid = (field: string) =>
  z.string({ required_error: `${field} is required` }).uuid(`${field} must be a uuid`);

/** Heartbeat body (all optional): the agent's self-description, stored on the agent. */
export const heartbeatBody = z
  .object({
    /** An invalid name is ignored (the old one kept, the heartbeat still 200: DESIGN). */
    agent_name: z.string().max(10_000).optional(),
    model_name: safeText(100).optional(),
    skill_count: z.number().int().min(0).max(1_000_000).optional(),
    soul_excerpt: safeText(1000).optional(),
    version: safeText(100).optional(),
  })
  .strict();
export type HeartbeatBody = z.infer<typeof heartbeatBody>;

export const heartbeatResponse = z.object({
  status: z.literal('ok'),
  agent_id: z.string().uuid(),
  is_online: z.boolean(),
});

/** One live event, every field bounded as in the spec's stream table. */
export const liveEventSchema = z
  .object({
    type: z.enum(LIVE_EVENT_TYPES),
    timestamp: z
      .string({ required_error: 'timestamp is required' })
      .datetime({ offset: true, message: 'must be an ISO 8601 date-time with a time zone' })
      // Stored as given; PostgreSQL has no year 0000 (1 BC is written 0001 BC).
      .refine((s) => !s.startsWith('0000-'), 'year 0000 is out of range'),
    summary: safeText(500).optional(),
    tool: safeText(100).optional(),
    filename: safeText(255).optional(),
    language: safeText(50).optional(),
    snippet: safeText(2000).optional(),
    command: safeText(500).optional(),
    exit_code: z.number().int().min(-2147483648).max(2147483647).optional(),
    error_summary: safeText(500).optional(),
    percent: z.number().min(0).max(100).optional(),
    stage: safeText(100).optional(),
  })
  .strict();

export const streamBody = z
  .object({
    challengeId: uuid('challengeId'),
    agentId: uuid('agentId'),
    event: liveEventSchema,
  })
  .strict();
// What the schema accepts is what the wire type promises (checked at compile time).
const _streamBodyIsWire: (body: z.infer<typeof streamBody>) => StreamRequest = (body) => body;

export const streamResponse = z.object({ received: z.boolean(), seq_num: z.number().int() });

export const assignmentSchema = z.object({
  match: z
    .object({
      id: z.string().uuid(),
      ends_at: z.string().nullable(),
      opponents: z.array(z.object({ agent_id: z.string().uuid(), agent_name: z.string() })),
    })
    .optional()
    .describe('a bout of a head_to_head challenge only: its match'),
  entry_id: z.string().uuid(),
  assigned_at: z.string(),
  challenge: z.object({
    id: z.string().uuid(),
    title: z.string(),
    description: z.string(),
    category: z.string(),
    format: z.string(),
    time_limit_minutes: z.number().int().nullable(),
    starts_at: z.string().nullable(),
    ends_at: z.string().nullable(),
  }),
});
export const idleEntrySchema = z.object({
  entry_id: z.string().uuid(),
  challenge_id: z.string().uuid(),
  title: z.string(),
  reason: z.enum(IDLE_REASONS),
  message: z.string(),
});

export const assignedResponse = z.object({
  challenges: z.array(assignmentSchema),
  idle: z
    .array(idleEntrySchema)
    .describe(
      "the agent's latest other entries (at most 20), each with why it is not an assignment; empty (with no challenges) when the agent is entered nowhere",
    ),
});

/** A released event as spectators see it. `feed_seq` is the challenge-wide feed position (the cursor). */
export const feedItemSchema = z.object({
  feed_seq: z.number().int().nullable(),
  id: z.string().describe("global arrival id (cursor of the operators' undelayed view)"),
  seq_num: z.number().int().describe("the agent's own sequence number within the challenge"),
  challenge_id: z.string().uuid(),
  agent_id: z.string().uuid(),
  agent_name: z.string(),
  received_at: z.string(),
  released_at: z.string().nullable(),
  event: liveEventSchema.extend({ timestamp: isoDate }),
});
const _feedItemIsWire: (item: FeedItem) => z.infer<typeof feedItemSchema> = (item) => item;
const _liveEventIsWire: (event: z.infer<typeof liveEventSchema>) => LiveEvent = (event) => event;

const boolParam = z
  .enum(['0', '1', 'true', 'false'])
  .optional()
  .transform((v) => v === '1' || v === 'true');

const cursorParam = z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

export const feedQuery = z.object({
  after_seq: cursorParam.optional(),
  after_id: cursorParam.optional(),
  agent_id: z.string().uuid().optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
  live: boolParam,
});

export const liveQuery = z.object({
  after_seq: cursorParam.optional(),
  agent_id: z.string().uuid().optional(),
  live: boolParam,
});

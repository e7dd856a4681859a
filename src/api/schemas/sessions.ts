import { z } from 'zod';
import type { SessionRow } from '../../db/queries/sessions';
import { challengeSchema, entrySchema } from './challenges';
import { iso } from '../../lib/time';
import { submissionSchema, submissionsLeftSchema } from './submissions';

/** JWT callers owning several agents name the one they act for. */
export const createSessionQuery = z.object({ agent_id: z.string().uuid().optional() });

/** The spec's Session (session_id, expires_at, version_snapshot, existing) plus additive fields. */
export const sessionSchema = z.object({
  session_id: z.string().uuid(),
  expires_at: z.string().nullable(),
  version_snapshot: z.record(z.unknown()).nullable(),
  existing: z.boolean(),
  // Extensions.
  challenge_id: z.string().uuid(),
  agent_id: z.string().uuid(),
  entry_id: z.string().uuid(),
  status: z.enum(['open', 'closed']),
  open: z.boolean(),
  sandbox: z.boolean(),
  close_reason: z.string().nullable(),
  closed_at: z.string().nullable(),
  created_at: z.string(),
});
export type Session = z.infer<typeof sessionSchema>;

export function toSession(row: Omit<SessionRow, 'owner_user_id'>, existing = false): Session {
  return {
    session_id: row.id,
    expires_at: iso(row.expires_at),
    version_snapshot: row.version_snapshot,
    existing,
    challenge_id: row.challenge_id,
    agent_id: row.agent_id,
    entry_id: row.entry_id,
    status: row.status,
    open: row.status === 'open',
    sandbox: row.sandbox,
    close_reason: row.close_reason,
    closed_at: iso(row.closed_at),
    created_at: row.created_at.toISOString(),
  };
}

/** GET /sessions/{id}: the session, its challenge, the entry, its submissions and the quota left. */
export const sessionDetailSchema = sessionSchema.extend({
  challenge: challengeSchema.nullable(),
  entry: entrySchema.nullable(),
  submissions: z.array(submissionSchema),
  limits: z.object({
    max_submissions_per_session: z.number().int(),
    submissions_counted: z.number().int(),
    submissions_remaining: z.number().int(),
  }),
  submissions_left: submissionsLeftSchema,
});

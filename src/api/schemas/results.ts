import { z } from 'zod';
import type { ResultRow } from '../../db/queries/results';
import { iso } from '../../lib/time';

export const resultStateSchema = z.enum(['scored', 'failed', 'disqualified']);

/** DESIGN.md's Result plus history fields (a rejudge supersedes a result; the old one stays readable). */
export const resultSchema = z.object({
  id: z.string().uuid(),
  /** DESIGN "Matches between agents": a submission's result; a match's is `kind: "match"`. */
  kind: z.literal('submission'),
  submission_id: z.string().uuid(),
  challenge_id: z.string().uuid(),
  agent_id: z.string().uuid(),
  final_score: z.number(),
  result_state: resultStateSchema,
  judged_at: z.string(),
  judge: z.string(),
  // Extensions.
  summary: z.string(),
  run: z.number().int(),
  current: z.boolean(),
  superseded_at: z.string().nullable(),
  sandbox: z.boolean(),
  /** Fair contests: operators always, the owner once the challenge is complete; absent otherwise. */
  private_score: z.number().nullable().optional(),
  /** Beside private_score, to the same readers: none (no private test), pending (its pass runs after the public result), done. */
  private_state: z.enum(['none', 'pending', 'done']).optional(),
  /** Why a private pass that could not finish scored 0; null otherwise. */
  private_reason: z.string().nullable().optional(),
  /** When the private pass was stored; null while pending or without private tests. */
  private_judged_at: z.string().nullable().optional(),
});

/** `showPrivate`: the caller may see private_score (src/domain/contests/policy.ts). */
export function toResult(row: ResultRow, showPrivate = false): z.infer<typeof resultSchema> {
  return {
    id: row.id,
    kind: 'submission',
    submission_id: row.submission_id,
    challenge_id: row.challenge_id,
    agent_id: row.agent_id,
    final_score: row.final_score,
    result_state: row.result_state,
    judged_at: row.judged_at.toISOString(),
    judge: row.judge,
    summary: row.summary,
    run: row.run,
    current: row.superseded_at === null,
    superseded_at: iso(row.superseded_at),
    sandbox: row.sandbox,
    ...(showPrivate
      ? {
          private_score: row.private_score,
          private_state: row.private_state,
          private_reason: row.private_reason,
          private_judged_at: iso(row.private_judged_at),
        }
      : {}),
  };
}

const criterionSchema = z.object({
  name: z.string(),
  score: z.number(),
  weight: z.number().optional(),
  passed: z.boolean().optional(),
  feedback: z.string().optional(),
  hidden: z.boolean().optional(),
  private: z.boolean().optional(),
});

/** One of three audience views (competitor, spectator, admin), with the result it projects. */
export const breakdownSchema = z.object({
  audience: z.enum(['competitor', 'spectator', 'admin']),
  submission_id: z.string().uuid(),
  result_id: z.string().uuid(),
  judge: z.string(),
  judged_at: z.string(),
  final_score: z.number(),
  result_state: resultStateSchema,
  hidden_summary: z.object({ hidden_passed: z.number().int(), hidden_total: z.number().int() }),
  summary: z.string().optional(),
  criteria: z.array(criterionSchema),
  details: z.record(z.unknown()).nullable().optional(),
  /** Operators always; the owner once the challenge is complete (and it has private tests). */
  private_score: z.number().nullable().optional(),
});

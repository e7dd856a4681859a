import { z } from 'zod';
import type {
  SubmissionEventRow,
  SubmissionHistoryRow,
  SubmissionRow,
  SubmissionSummaryRow,
} from '../../db/queries/submissions';
import { HISTORY_DEFAULT_LIMIT, HISTORY_MAX_LIMIT } from '../../domain/submissions/history';
import { SUBMISSION_LIMITS } from '../../domain/submissions/rules';
import { queryInt, safeText } from './common';

export const submissionStatusSchema = z.enum(['received', 'queued', 'judging', 'complete', 'failed']);

/** C0 and C1 control characters (DEL included). */
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * A file's path as the competitor's tree has it (`src/solution.ts`), in one canonical form
 * (DESIGN "Submitting code the way people do"): relative, `/`-separated, no `.`/`..` or empty
 * segment, no backslash, no control character.
 */
export const submissionPathSchema = safeText(SUBMISSION_LIMITS.maxPathChars, 1)
  .refine(
    (p) => !/^\//.test(p) && !/^[A-Za-z]:/.test(p),
    'path must be relative (no leading / or drive letter)',
  )
  .refine((p) => !p.includes('\\'), 'path must use / between folders, not \\')
  .refine((p) => !CONTROL_CHARACTER.test(p), 'path must not contain control characters')
  .refine(
    (p) => !p.split('/').some((segment) => segment === '.' || segment === '..'),
    "path must not contain '.' or '..' segments",
  )
  .refine((p) => !p.split('/').includes(''), 'path must not contain empty segments (a//b, a trailing /)');

const filePath = submissionPathSchema;

export const submissionFileSchema = z
  .object({
    path: filePath,
    content: safeText(SUBMISSION_LIMITS.maxTotalBytes),
    language: safeText(SUBMISSION_LIMITS.maxLanguageChars, 1).optional(),
  })
  .strict();

export const createSubmissionBody = z
  .object({
    content: safeText(SUBMISSION_LIMITS.maxContentChars),
    files: z.array(submissionFileSchema).max(SUBMISSION_LIMITS.maxFiles).optional(),
    /** Extension: id or alias; for files naming none, and for `content` without files. */
    language: safeText(SUBMISSION_LIMITS.maxLanguageChars, 1).optional(),
  })
  .strict()
  .superRefine((body, ctx) => {
    const files = body.files ?? [];
    const seen = new Set<string>();
    files.forEach((f, i) => {
      if (seen.has(f.path))
        ctx.addIssue({
          code: z.ZodIssueCode.custom,
          path: ['files', i, 'path'],
          message: `duplicate path ${f.path}`,
        });
      seen.add(f.path);
    });
    const total =
      Buffer.byteLength(body.content) +
      files.reduce((n, f) => n + Buffer.byteLength(f.path) + Buffer.byteLength(f.content), 0);
    if (total > SUBMISSION_LIMITS.maxTotalBytes) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['files'],
        message: `content and files together exceed ${SUBMISSION_LIMITS.maxTotalBytes} bytes`,
      });
    }
  });
export type CreateSubmissionBody = z.infer<typeof createSubmissionBody>;

/** DESIGN `submissions_left` (null for callers that act as no agent; each number null where unlimited). */
export const submissionsLeftSchema = z
  .object({
    session: z.number().int().nullable().openapi({
      description:
        "left in the agent's open session (the per-session cap when none is open); null: unlimited",
    }),
    day: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'left in the rolling 24 hours; null: unlimited' }),
    day_resets_at: z.string().nullable().openapi({
      description: 'when the oldest counted submission leaves the 24-hour window (null when none counts)',
    }),
  })
  .nullable()
  .openapi('SubmissionsLeft', {
    description: 'for a bearer credential that acts as an agent (an API token); null for other callers',
  });

/** The spec's Submission plus additive fields. */
export const submissionSchema = z.object({
  id: z.string().uuid(),
  challenge_id: z.string().uuid(),
  agent_id: z.string().uuid(),
  submission_status: submissionStatusSchema,
  artifact_hash: z.string().nullable(),
  submitted_at: z.string(),
  created_at: z.string(),
  // Extensions.
  session_id: z.string().uuid(),
  sandbox: z.boolean(),
  failure_reason: z.string().nullable(),
  /** Fair contests: selected by its owner for the final board (POST /submissions/{id}/select). */
  selected: z.boolean(),
});

export function toSubmission(row: SubmissionSummaryRow): z.infer<typeof submissionSchema> {
  return {
    id: row.id,
    challenge_id: row.challenge_id,
    agent_id: row.agent_id,
    submission_status: row.status,
    artifact_hash: row.artifact_hash,
    submitted_at: row.submitted_at.toISOString(),
    created_at: row.created_at.toISOString(),
    session_id: row.session_id,
    sandbox: row.sandbox,
    failure_reason: row.failure_reason,
    selected: row.selected_at !== null && row.selected_at !== undefined,
  };
}

export const submissionEventSchema = z.object({
  status: submissionStatusSchema,
  message: z.string(),
  created_at: z.string(),
  /** 0 for the first judging, n for rejudge n. */
  run: z.number().int(),
  data: z.record(z.unknown()).optional(),
});

export function toSubmissionEvent(row: SubmissionEventRow): z.infer<typeof submissionEventSchema> {
  return {
    status: row.status,
    message: row.message,
    created_at: row.created_at.toISOString(),
    run: row.run,
    ...(row.data ? { data: row.data } : {}),
  };
}

/** A submission's current result, once judged. */
const currentResultSchema = z.object({
  id: z.string().uuid(),
  final_score: z.number(),
  result_state: z.string(),
  judged_at: z.string(),
  /** Operators' listings only (fair contests). */
  private_score: z.number().nullable().optional(),
  /** Beside private_score: none, pending (the private pass runs after the public result) or done. */
  private_state: z.enum(['none', 'pending', 'done']).optional(),
});

export const submissionDetailSchema = submissionSchema.extend({
  content: z.string(),
  files: z.array(z.object({ path: z.string(), content: z.string(), language: z.string().optional() })),
  language: z.string().nullable(),
  updated_at: z.string(),
  rejudge_count: z.number().int(),
  result: currentResultSchema.nullable(),
  events: z.array(submissionEventSchema),
});

export function toSubmissionDetail(
  row: SubmissionRow,
  events: SubmissionEventRow[],
  result: { id: string; final_score: number; result_state: string; judged_at: Date } | null,
): z.infer<typeof submissionDetailSchema> {
  return {
    ...toSubmission(row),
    content: row.content,
    files: row.files,
    language: row.language ?? null,
    updated_at: row.updated_at.toISOString(),
    rejudge_count: row.judge_run,
    result: result
      ? {
          id: result.id,
          final_score: result.final_score,
          result_state: result.result_state,
          judged_at: result.judged_at.toISOString(),
        }
      : null,
    events: events.map(toSubmissionEvent),
  };
}

export const rejudgeResponseSchema = z.object({
  submission_id: z.string().uuid(),
  run: z.number().int(),
  workflow_id: z.string(),
  submission_status: z.literal('queued'),
  workflow_started: z.boolean(),
});

export const submissionHistoryQuery = z
  .object({
    agent_id: z.string().uuid().optional(),
    challenge_id: z.string().uuid().optional(),
    status: submissionStatusSchema.optional(),
    limit: queryInt(1, HISTORY_MAX_LIMIT, HISTORY_DEFAULT_LIMIT),
    cursor: z.string().max(400).optional(),
  })
  .strict();

/** One row of a submission history: the summary, its current score once judged, and where to read more. */
export const submissionHistoryItemSchema = submissionSchema.extend({
  agent_name: z.string(),
  challenge_title: z.string(),
  result: currentResultSchema.nullable(),
  links: z.object({
    self: z.string(),
    result: z.string().nullable(),
    breakdown: z.string().nullable(),
  }),
});

/** `showPrivate`: operators' listings, which carry each result's private_score. */
export function toSubmissionHistoryItem(
  row: SubmissionHistoryRow,
  showPrivate = false,
): z.infer<typeof submissionHistoryItemSchema> {
  const judged = row.result_id !== null && row.final_score !== null && row.judged_at !== null;
  return {
    ...toSubmission(row),
    agent_name: row.agent_name,
    challenge_title: row.challenge_title,
    result: judged
      ? {
          id: row.result_id!,
          final_score: Number(row.final_score),
          result_state: row.result_state ?? 'scored',
          judged_at: row.judged_at!.toISOString(),
          ...(showPrivate
            ? {
                private_score: row.private_score === null ? null : Number(row.private_score),
                private_state: (row.private_state ?? 'none') as 'none' | 'pending' | 'done',
              }
            : {}),
        }
      : null,
    links: {
      self: `/api/v1/submissions/${row.id}`,
      result: judged ? `/api/v1/results/${row.id}` : null,
      breakdown: judged ? `/api/v1/submissions/${row.id}/breakdown` : null,
    },
  };
}

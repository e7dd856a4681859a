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

/** Relative paths only: no absolute path, drive letter, backslash root or `..` segment. */
const filePath = safeText(SUBMISSION_LIMITS.maxPathChars, 1)
  .refine((p) => !/^[\\/]/.test(p) && !/^[A-Za-z]:/.test(p), 'path must be relative')
  .refine((p) => !p.split(/[\\/]/).includes('..'), "path must not contain '..' segments");

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
});

export const submissionDetailSchema = submissionSchema.extend({
  content: z.string(),
  files: z.array(z.object({ path: z.string(), content: z.string(), language: z.string().optional() })),
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

export function toSubmissionHistoryItem(
  row: SubmissionHistoryRow,
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
        }
      : null,
    links: {
      self: `/api/v1/submissions/${row.id}`,
      result: judged ? `/api/v1/results/${row.id}` : null,
      breakdown: judged ? `/api/v1/submissions/${row.id}/breakdown` : null,
    },
  };
}

import { z } from 'zod';
import { CLARIFICATION_LIMITS } from '../../domain/contests/rules';
import { safeText } from './common';

export const clarificationSchema = z.object({
  id: z.string().uuid(),
  kind: z.enum(['question', 'announcement']),
  question: z.string().nullable(),
  answer: z.string().nullable(),
  public: z.boolean(),
  asked_at: z.string(),
  answered_at: z.string().nullable(),
});

export const questionBody = z.object({ question: safeText(CLARIFICATION_LIMITS.questionChars, 1) }).strict();
export const answerBody = z
  .object({ answer: safeText(CLARIFICATION_LIMITS.answerChars, 1), public: z.boolean().default(false) })
  .strict();
export const announcementBody = z.object({ text: safeText(CLARIFICATION_LIMITS.answerChars, 1) }).strict();

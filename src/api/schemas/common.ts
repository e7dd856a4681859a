import { z, type ZodTypeAny } from 'zod';
import { paginationSchema } from '../route';

export const errorEnvelopeSchema = z.object({
  error: z.object({ message: z.string(), code: z.string(), request_id: z.string() }),
});
export const flatErrorSchema = z.object({ error: z.string() });

export const envelope = <T extends ZodTypeAny>(data: T) => z.object({ data, request_id: z.string() });
export const pagedEnvelope = <T extends ZodTypeAny>(item: T) =>
  z.object({ data: z.array(item), request_id: z.string(), pagination: paginationSchema });

export const isoDate = z.string().datetime({ offset: true });
export const iso = (d: Date | null | undefined): string | null => (d ? d.toISOString() : null);

/** Query-string integers: "20" → 20, with bounds and defaults. */
export const queryInt = (min: number, max: number, fallback: number) => z.coerce.number().int().min(min).max(max).default(fallback);

/** Strings with no NUL bytes: PostgreSQL text cannot store them, so they are a validation error, not a 500. */
export const safeText = (max: number, min = 0) =>
  z.string().min(min).max(max).refine((s) => !s.includes('\u0000'), 'must not contain NUL characters');

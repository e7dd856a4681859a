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

/** Query-string integers: "20" → 20, with bounds and defaults. */
export const queryInt = (min: number, max: number, fallback: number) =>
  z.coerce.number().int().min(min).max(max).default(fallback);

/** Strings with no NUL bytes: PostgreSQL text cannot store them, so they are a validation error, not a 500. */
export const safeText = (max: number, min = 0) =>
  z
    .string()
    .min(min)
    .max(max)
    .refine((s) => !s.includes('\u0000'), 'must not contain NUL characters');

/** An unpaired UTF-16 surrogate (with the u flag, a well-formed pair is one code point and does not match). */
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * The first string (value or object key) anywhere in a parsed JSON body that PostgreSQL cannot store:
 * NUL (neither text nor jsonb) or an unpaired surrogate (jsonb refuses its \uD800 escape; text would
 * silently turn it into U+FFFD). Iterative, so any nesting depth the body parser accepts is fine.
 */
export function unstorableString(value: unknown): { path: (string | number)[]; message: string } | null {
  interface Node {
    value: unknown;
    key?: string | number;
    parent?: Node;
  }
  const pathOf = (node: Node | undefined, last?: string | number): (string | number)[] => {
    const path: (string | number)[] = last === undefined ? [] : [last];
    for (let n = node; n && n.key !== undefined; n = n.parent) path.push(n.key);
    path.reverse();
    return path.length > 20 ? [...path.slice(0, 10), '…', ...path.slice(-5)] : path;
  };
  const problem = (s: string) =>
    s.includes('\u0000')
      ? 'must not contain NUL characters'
      : LONE_SURROGATE.test(s)
        ? 'must be well-formed Unicode (unpaired surrogate)'
        : null;
  // Parent links, not copied paths: a body nested 500 000 deep costs linear time.
  const stack: Node[] = [{ value }];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const v = node.value;
    if (typeof v === 'string') {
      const message = problem(v);
      if (message) return { path: pathOf(node), message };
    } else if (Array.isArray(v)) {
      v.forEach((item, i) => stack.push({ value: item, key: i, parent: node }));
    } else if (v !== null && typeof v === 'object') {
      for (const [k, item] of Object.entries(v)) {
        const message = problem(k);
        if (message) return { path: pathOf(node, k), message: `key ${message}` };
        stack.push({ value: item, key: k, parent: node });
      }
    }
  }
  return null;
}

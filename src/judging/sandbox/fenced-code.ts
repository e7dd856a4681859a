/**
 * Finds the code of a submission's `content`: the first fenced block tagged as JavaScript or
 * TypeScript, with the semantics of /```(?:ts|typescript|js|javascript|mjs|cjs|tsx|jsx)[^\n]*\n([\s\S]*?)```/i
 * but in linear time. That regex retries every later opening fence when no closing fence follows,
 * which is quadratic on crafted content (over 1 s of worker CPU for 100,000 characters).
 *
 * Why a single pass is enough: the first opening fence whose line ends (has a newline) decides the
 * match. If no closing fence follows its line, no later opening can match either, since a later
 * opening on another line would itself be a closing fence for it, and one on the same line shares
 * its newline.
 */

/** Tags after the opening fence, as prefixes (the regex accepts any rest of the line after them). */
const TAG_PREFIXES = ['typescript', 'javascript', 'ts', 'js', 'mjs', 'cjs'];
const FENCE = '```';

/** Counts characters examined, for the linearity test (every search is a forward scan). */
export interface ScanCounter {
  steps: number;
}

function find(text: string, needle: string, from: number, counter?: ScanCounter): number {
  const at = text.indexOf(needle, from);
  if (counter) counter.steps += (at < 0 ? text.length : at + needle.length) - from;
  return at;
}

function taggedAsCode(text: string, afterFence: number, counter?: ScanCounter): boolean {
  const head = text.slice(afterFence, afterFence + 10).toLowerCase();
  if (counter) counter.steps += head.length;
  return TAG_PREFIXES.some((prefix) => head.startsWith(prefix));
}

/** The first fenced js/ts block's body, or undefined when there is none. */
export function firstFencedCode(text: string, counter?: ScanCounter): string | undefined {
  let from = 0;
  for (;;) {
    const fence = find(text, FENCE, from, counter);
    if (fence < 0) return undefined;
    const afterFence = fence + FENCE.length;
    if (taggedAsCode(text, afterFence, counter)) {
      const lineEnd = find(text, '\n', afterFence, counter);
      if (lineEnd < 0) return undefined; // no later fence can have a line end either
      const close = find(text, FENCE, lineEnd + 1, counter);
      return close < 0 ? undefined : text.slice(lineEnd + 1, close);
    }
    from = fence + 1;
  }
}

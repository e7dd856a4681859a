/**
 * What a competitor's JavaScript/TypeScript file must fit before a parser sees it: a cheap linear
 * scan, so that the commonest shape that kills a recursive parser (a deep nest of brackets: 0.8
 * MB of `[` overflowed esbuild's stack) is refused with a clear message instead of costing two
 * crashed toolchain processes. Other deep recursions without brackets (200k `!` in a row) still
 * reach the parser: its process may die, and run-esbuild.ts judges that.
 */

export const SOURCE_BOUNDS = {
  /** Brackets of `(`, `[`, `{` and template `${` open at once; real programs stay far below 100. */
  maxNesting: 1_000,
  /** Characters of one file (the tests judge's whole submission is bounded by the same number). */
  maxChars: 2_000_000,
} as const;

export interface SourceBoundsProblem {
  text: string;
  /** 1-based line and 0-based column (esbuild's convention) where the limit was passed. */
  line: number;
  column: number;
}

const OPENERS = new Set([0x28, 0x5b, 0x7b]); // ( [ {
const TEMPLATE_EXPRESSION = -1;

/**
 * The first bound the source passes, or null. Strings, comments and template text are skipped
 * (brackets there nest nothing); regular expressions are not told apart from code, so their
 * brackets count (a closer never takes the depth below 0).
 */
export function sourceBoundsProblem(
  source: string,
  bounds: { maxNesting: number; maxChars: number } = SOURCE_BOUNDS,
): SourceBoundsProblem | null {
  if (source.length > bounds.maxChars) {
    return {
      text: `the file has ${source.length} characters, more than the toolchain's limit of ${bounds.maxChars}`,
      line: 1,
      column: 0,
    };
  }
  const open: number[] = [];
  const length = source.length;
  let i = 0;

  /** From just after a backtick or a template's `}`: past the closing backtick or into `${`. */
  const skipTemplateText = (): void => {
    while (i < length) {
      const c = source.charCodeAt(i);
      if (c === 0x5c)
        i += 2; // \
      else if (c === 0x60) {
        i += 1; // `
        return;
      } else if (c === 0x24 && source.charCodeAt(i + 1) === 0x7b) {
        open.push(TEMPLATE_EXPRESSION); // ${
        i += 2;
        return;
      } else i += 1;
    }
  };

  while (i < length) {
    const c = source.charCodeAt(i);
    if (c === 0x2f) {
      const next = source.charCodeAt(i + 1);
      if (next === 0x2f) {
        const end = source.indexOf('\n', i + 2);
        i = end === -1 ? length : end + 1;
        continue;
      }
      if (next === 0x2a) {
        const end = source.indexOf('*/', i + 2);
        i = end === -1 ? length : end + 2;
        continue;
      }
      i += 1;
    } else if (c === 0x22 || c === 0x27) {
      // "…" or '…': to the same quote, or the end of the line (an unterminated string)
      i += 1;
      while (i < length) {
        const d = source.charCodeAt(i);
        if (d === 0x5c) i += 2;
        else if (d === c || d === 0x0a) {
          i += 1;
          break;
        } else i += 1;
      }
    } else if (c === 0x60) {
      i += 1;
      skipTemplateText();
      if (open.length > bounds.maxNesting) return nestingProblem(source, i - 1, bounds.maxNesting);
    } else if (OPENERS.has(c)) {
      open.push(c);
      if (open.length > bounds.maxNesting) return nestingProblem(source, i, bounds.maxNesting);
      i += 1;
    } else if (c === 0x29 || c === 0x5d) {
      if (open.length > 0 && open[open.length - 1] !== TEMPLATE_EXPRESSION) open.pop();
      i += 1;
    } else if (c === 0x7d) {
      i += 1;
      if (open.pop() === TEMPLATE_EXPRESSION) skipTemplateText();
    } else {
      i += 1;
    }
  }
  return null;
}

function nestingProblem(source: string, index: number, maxNesting: number): SourceBoundsProblem {
  let line = 1;
  let lineStart = 0;
  for (let at = source.indexOf('\n'); at !== -1 && at < index; at = source.indexOf('\n', at + 1)) {
    line += 1;
    lineStart = at + 1;
  }
  return {
    text: `brackets nested deeper than ${maxNesting} levels, the toolchain's limit (nothing was parsed)`,
    line,
    column: index - lineStart,
  };
}

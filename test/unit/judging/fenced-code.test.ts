import fc from 'fast-check';
import { type ScanCounter, firstFencedCode } from '../../../src/judging/sandbox/fenced-code';

/** The regex the scanner replaces: its answers are the reference, its cost is the reason. */
const REFERENCE = /```(?:ts|typescript|js|javascript|mjs|cjs|tsx|jsx)[^\n]*\n([\s\S]*?)```/i;

describe('firstFencedCode', () => {
  it('finds the first js/ts block', () => {
    expect(firstFencedCode('intro\n```ts\nexport const a = 1;\n```\nmore')).toBe('export const a = 1;\n');
    expect(firstFencedCode('```python\nx\n```\n```JavaScript title\nok()\n```')).toBe('ok()\n');
    expect(firstFencedCode('```tsx\n<a/>\n```')).toBe('<a/>\n');
    expect(firstFencedCode('no fences here')).toBeUndefined();
    expect(firstFencedCode('```ts\nnever closed')).toBeUndefined();
  });

  it('answers exactly as the regex on arbitrary text built from fences, tags and newlines', () => {
    const piece = fc.constantFrom(
      '```',
      'ts',
      'TS',
      'js',
      'jsx',
      'typescript',
      'py',
      '\n',
      'x',
      ' ',
      '`',
      'cjs',
      'mj',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), (pieces) => {
        const text = pieces.join('');
        expect(firstFencedCode(text)).toBe(REFERENCE.exec(text)?.[1]);
      }),
      { numRuns: 2000 },
    );
  });

  it('examines a number of characters linear in the input on worst-case content', () => {
    // Worst cases for the regex: many opening fences and no closing one after a newline.
    const adversaries = [
      (n: number) => '```ts'.repeat(n / 5),
      (n: number) => '```ts\n'.repeat(1) + 'x'.repeat(n - 6),
      (n: number) => '```'.repeat(n / 3),
      (n: number) => '```py\n'.repeat(n / 6),
    ];
    for (const adversary of adversaries) {
      const small: ScanCounter = { steps: 0 };
      const large: ScanCounter = { steps: 0 };
      firstFencedCode(adversary(10_000), small);
      firstFencedCode(adversary(100_000), large);
      // Ten times the input, at most about ten times the work (a quadratic scan would be ~100×).
      expect(large.steps / small.steps).toBeLessThanOrEqual(11);
      // And a small constant per character: each fence costs its scan plus a 10-character tag check.
      expect(large.steps).toBeLessThanOrEqual(16 * 100_000);
    }
  });
});

/**
 * The one number format for scores (pages, the watch page, the CLI): two decimals, 0.00–100.00,
 * "–" when there is none yet. Written as browser JavaScript (ES2017, no helpers) so the server
 * render, the pages' refreshes and the CLI run the very same code.
 */
export const FORMAT_SCORE_JS = `function formatScore(score) {
  if (score === null || score === undefined || score === '') return '\\u2013';
  var n = Number(score);
  return isFinite(n) ? n.toFixed(2) : '\\u2013';
}`;

// One implementation for every side: Node evaluates the same source the browser gets.
export const formatScore = new Function(`${FORMAT_SCORE_JS}; return formatScore;`)() as (
  score: number | string | null | undefined,
) => string;

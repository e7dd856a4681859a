/**
 * Times as people read them on pages (issue 41: no raw ISO strings): "29 Nov 2026, 03:59:30 UTC",
 * in UTC so that a page renders the same for everyone and in tests; the ISO value stays in the
 * `<time datetime>` attribute for machines.
 */
import { html, type SafeHtml } from './html';

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const two = (n: number) => String(n).padStart(2, '0');

/** "29 Nov 2026, 03:59:30 UTC" (seconds matter on a match page: games last a second). */
export function readableTime(at: string | Date): string {
  const d = typeof at === 'string' ? new Date(at) : at;
  if (Number.isNaN(d.getTime())) return String(at);
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}, ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())} UTC`;
}

/** A `<time>` element: the readable text, the ISO value for machines. */
export function timeTag(at: string | Date): SafeHtml {
  const d = typeof at === 'string' ? new Date(at) : at;
  const isoValue = Number.isNaN(d.getTime()) ? String(at) : d.toISOString();
  return html`<time datetime="${isoValue}">${readableTime(d)}</time>`;
}

/** The same format in a page's script (browser code, UTC): `readableTime(iso)`. */
export const READABLE_TIME_JS = `
  var MONTHS = ${JSON.stringify(MONTHS)};
  function two(n) { return (n < 10 ? '0' : '') + n; }
  function readableTime(at) {
    var d = new Date(at); if (isNaN(d.getTime())) return String(at);
    return d.getUTCDate() + ' ' + MONTHS[d.getUTCMonth()] + ' ' + d.getUTCFullYear() + ', ' + two(d.getUTCHours()) + ':' + two(d.getUTCMinutes()) + ':' + two(d.getUTCSeconds()) + ' UTC';
  }
`;

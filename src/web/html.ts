/**
 * HTML that is escaped by construction (docs/decisions/web.md, "How pages escape").
 *
 * Markup is written with the `html` tagged template: every interpolated value is escaped as text
 * (`&<>"'`), unless it is already `SafeHtml` (the result of another `html` template, of `raw`, or of
 * `scriptJson`). Arrays of values are joined; `null`, `undefined` and `false` render nothing, so
 * `${cond && html`…`}` and `${list.map(…)}` read naturally. The page shell (`renderPage`) takes only
 * `SafeHtml`, so a page built by string concatenation does not type-check.
 *
 * `raw(text)` is the one way to embed text unescaped; it is meant for our own constants (a page's
 * CSS or script) and nothing a person typed. Every use is listed by `git grep -n 'raw('  src/web`.
 *
 * Attribute values must stay quoted (`href="${url}"`): escaping `"` and `'` is what keeps a value
 * inside its attribute. Escaping does not make a URL harmless (`javascript:`); pages only build links
 * to our own paths.
 */

const MINT = Symbol('SafeHtml');

/** Markup that is safe to send: made only by `html`, `raw`, `scriptJson` and `joinHtml`. */
export class SafeHtml {
  readonly #html: string;

  /** Not for callers: make one with `html`…`` (or `raw`, the visible exception). */
  constructor(mint: typeof MINT, markup: string) {
    if (mint !== MINT) throw new TypeError('SafeHtml is made by html`…` or raw()');
    this.#html = markup;
  }

  toString(): string {
    return this.#html;
  }
}

/** What a template may interpolate: text (escaped), markup (as is), lists of either, or nothing. */
export type HtmlValue = SafeHtml | string | number | bigint | null | undefined | false | readonly HtmlValue[];

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Text as HTML text or a quoted attribute value. */
export function escapeText(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

function render(value: HtmlValue): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.toString();
  if (typeof value === 'string') return escapeText(value);
  if (typeof value === 'number' || typeof value === 'bigint') return escapeText(String(value));
  if (Array.isArray(value)) return (value as readonly HtmlValue[]).map(render).join('');
  // A Date, a plain object, `true`…: a slip the types should have caught; never guess a rendering.
  throw new TypeError(
    `html\`\`: cannot interpolate a ${typeof value} (${Object.prototype.toString.call(value)})`,
  );
}

/** The tagged template: static parts as written, every `${value}` escaped unless it is `SafeHtml`. */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1];
  return new SafeHtml(MINT, out);
}

/**
 * THE EXCEPTION: `text` is sent unescaped. Only for markup, CSS or script our own code wrote (never
 * a value from a request, the database or a judge). Keep every use greppable: `raw(`.
 */
export function raw(text: string): SafeHtml {
  return new SafeHtml(MINT, text);
}

/** Items joined by a separator (text, escaped, or markup). */
export function joinHtml(items: readonly HtmlValue[], separator: HtmlValue): SafeHtml {
  const sep = render(separator);
  return new SafeHtml(MINT, items.map(render).join(sep));
}

/**
 * JSON for a `<script type="application/json">` data block (or a script literal): `<`, `>`, `&` and
 * `'` as `\u003c`…, so no `</script>` or `<!--` can end or bend the block, and U+2028/2029 escaped
 * for old JavaScript parsers. JSON.parse reads it back unchanged.
 */
export function scriptJson(value: unknown): SafeHtml {
  const json = JSON.stringify(value) ?? 'null';
  return new SafeHtml(
    MINT,
    json
      .replace(/</g, '\\u003c')
      .replace(/>/g, '\\u003e')
      .replace(/&/g, '\\u0026')
      .replace(/'/g, '\\u0027')
      .replace(/\u2028/g, '\\u2028')
      .replace(/\u2029/g, '\\u2029'),
  );
}

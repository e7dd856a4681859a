import { escapeText, html, joinHtml, raw, SafeHtml, scriptJson, type HtmlValue } from '../../../src/web/html';

describe('html`…`: escaped by default', () => {
  it('escapes every interpolated string as text', () => {
    const hostile = `"><img src=x onerror=alert(1)>'&`;
    expect(String(html`<p title="${hostile}">${hostile}</p>`)).toBe(
      '<p title="&quot;&gt;&lt;img src=x onerror=alert(1)&gt;&#39;&amp;">&quot;&gt;&lt;img src=x onerror=alert(1)&gt;&#39;&amp;</p>',
    );
  });

  it('renders numbers, drops null, undefined and false, keeps 0 and the empty string', () => {
    const nothing: HtmlValue[] = [null, undefined, false];
    expect(String(html`${1.5}|${0}|${''}|${nothing}|${10n}`)).toBe('1.5|0|||10');
  });

  it('embeds SafeHtml as is, and arrays joined without separator', () => {
    const items = ['a<b', 'c'].map((t) => html`<li>${t}</li>`);
    expect(String(html`<ul>${items}</ul>`)).toBe('<ul><li>a&lt;b</li><li>c</li></ul>');
  });

  it('escapes text inside nested arrays', () => {
    expect(String(html`${['<', [html`<br>`, '>']]}`)).toBe('&lt;<br>&gt;');
  });

  it('returns a SafeHtml, not a string', () => {
    const out = html`<b>x</b>`;
    expect(out).toBeInstanceOf(SafeHtml);
    expect(typeof out).toBe('object');
  });

  it('refuses values it cannot render as text (a slip the types should have caught)', () => {
    expect(() => html`${new Date(0) as unknown as string}`).toThrow(TypeError);
    expect(() => html`${true as unknown as string}`).toThrow(TypeError);
    expect(() => html`${{ toString: () => '<script>' } as unknown as string}`).toThrow(TypeError);
  });

  it('cannot be minted outside the module', () => {
    expect(() => new SafeHtml(Symbol('SafeHtml') as never, '<script>')).toThrow(TypeError);
  });
});

describe('raw, joinHtml, scriptJson', () => {
  it('raw embeds unescaped markup (the visible exception)', () => {
    expect(String(html`<div>${raw('<b>ours</b>')}</div>`)).toBe('<div><b>ours</b></div>');
  });

  it('joinHtml escapes items and a text separator, keeps a markup separator', () => {
    expect(String(joinHtml(['a&', 'b'], ', '))).toBe('a&amp;, b');
    expect(String(joinHtml(['x', '<y>'], html`<br>`))).toBe('x<br>&lt;y&gt;');
  });

  it('scriptJson cannot close its script block and parses back unchanged', () => {
    const value = { t: "</script><script>alert(1)</script><!-- & ' \u2028\u2029" };
    const out = String(scriptJson(value));
    expect(out).not.toMatch(/[<>&'\u2028\u2029]/);
    expect(JSON.parse(out)).toEqual(value);
    expect(String(scriptJson(undefined))).toBe('null');
  });

  it('escapeText covers the five characters', () => {
    expect(escapeText(`&<>"'`)).toBe('&amp;&lt;&gt;&quot;&#39;');
  });
});

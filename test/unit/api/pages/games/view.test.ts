/**
 * The games' rules pages: markdownLite renders the Markdown each game's module keeps (headings one
 * level below the page's h1, lists, paragraphs, `code`), escaping everything it is given; the
 * pages show every built-in game's rules, protocol schemas and baseline bot.
 */
import { getGame, listGames } from '../../../../../src/domain/games/catalog';
import { markdownLite, renderGamePage, renderGamesPage } from '../../../../../src/api/pages/games/view';

const tags = (markup: string) => [...markup.matchAll(/<\/?([a-z0-9]+)/g)].map((m) => m[1]);

describe('markdownLite', () => {
  test('headings, lists, paragraphs and code spans', () => {
    const out = String(
      markdownLite('# Title\n\nOne line\nand the next.\n\n## Moves\n- `up` or\n  `down`;\n- stay\n\nAfter.'),
    );
    expect(out).toBe(
      [
        '<h2>Title</h2>',
        '<p>One line and the next.</p>',
        '<h3>Moves</h3>',
        '<ul><li><code>up</code> or <code>down</code>;</li><li>stay</li></ul>',
        '<p>After.</p>',
      ].join('\n'),
    );
  });

  test('markup in any position stays text; an unclosed backtick is shown, not a code span', () => {
    const evil = '<img src=x onerror=alert(1)>';
    const out = String(markdownLite(`# ${evil}\n\n${evil} \`${evil}\`\n\n- ${evil}\n\nodd \` tick ${evil}`));
    expect(out).not.toContain('<img');
    expect(out).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(new Set(tags(out))).toEqual(new Set(['h2', 'p', 'code', 'ul', 'li']));
    expect(out).toContain('<p>odd ` tick &lt;img');
  });
});

describe('the games pages', () => {
  test.each(listGames().map((g) => g.id))('%s: rules as HTML, the boss, the schemas', (id) => {
    const game = getGame(id);
    const page = String(renderGamePage({ game }).html);
    expect(page).toContain(`<h1>${game.name}</h1>`);
    // Every rules heading is a heading of the page, and no Markdown marker is left as text.
    const headings = game.rules.split('\n').filter((l) => /^#{1,3} /.test(l)).length;
    expect(headings).toBeGreaterThan(1);
    const rules = /<section aria-label="Rules" id="game-rules">([\s\S]*?)<\/section>/.exec(page)![1];
    expect(tags(rules).filter((t) => /^h[2-4]$/.test(t)).length).toBe(headings * 2);
    expect(rules).not.toMatch(/(^|>)\s*#+ /m);
    expect(rules).not.toContain('`');
    expect(page).toContain(`play --game ${id} boss ${game.boss.file}`);
    expect(page).toContain('id="boss-source"');
  });

  test('/games lists each game with a link to its page', () => {
    const page = String(renderGamesPage({ games: listGames() }).html);
    for (const g of listGames()) expect(page).toContain(`<a href="/games/${g.id}">`);
  });
});

/**
 * The games' pages (issue 31): /games lists the built-in games, /games/{id} shows one game's
 * rules, its line protocol's schemas, its baseline bot and how to play it at home. The rules are
 * Markdown kept in each game's module; `markdownLite` renders the little of it they use (headings,
 * lists, paragraphs, `code`), every piece through `html`, so nothing in them can become markup.
 */
import { html, joinHtml, type SafeHtml } from '../../../web/html';
import { renderPage, type HeaderAccount, type RenderedPage } from '../../../web/layout';
import type { GameDetail, GameListing } from '../../../domain/games/catalog';

/** `code` spans of one line of text, the rest as text. */
function inline(text: string): SafeHtml {
  const parts = text.split('`');
  // An odd count of backticks leaves the last span open: show it as text, backtick included.
  if (parts.length % 2 === 0) parts[parts.length - 2] += `\`${parts.pop()!}`;
  return joinHtml(
    parts.map((part, i) => (i % 2 === 1 ? html`<code>${part}</code>` : part)),
    '',
  );
}

/** Headings (#, ##, ###), "- " lists and paragraphs; blank lines separate blocks. */
export function markdownLite(markdown: string): SafeHtml {
  const blocks: SafeHtml[] = [];
  let paragraph: string[] = [];
  let list: string[] = [];
  const flush = () => {
    if (paragraph.length) blocks.push(html`<p>${inline(paragraph.join(' '))}</p>`);
    if (list.length) blocks.push(html`<ul>${list.map((item) => html`<li>${inline(item)}</li>`)}</ul>`);
    paragraph = [];
    list = [];
  };
  for (const line of markdown.split('\n')) {
    const heading = /^(#{1,3}) ([\s\S]*)$/.exec(line);
    if (heading) {
      flush();
      // The page's own h1 is the game's name: the rules' headings sit one level below it.
      const level = Math.min(heading[1].length + 1, 4);
      blocks.push(html`<h${level}>${inline(heading[2])}</h${level}>`);
    } else if (line.startsWith('- ')) {
      if (paragraph.length) flush();
      list.push(line.slice(2));
    } else if (line.trim() === '') {
      flush();
    } else if (list.length && /^\s+\S/.test(line)) {
      list[list.length - 1] += ` ${line.trim()}`;
    } else {
      if (list.length) flush();
      paragraph.push(line.trim());
    }
  }
  flush();
  return joinHtml(blocks, '\n');
}

const players = (g: GameListing) =>
  g.players.min === g.players.max ? `${g.players.min} players` : `${g.players.min}–${g.players.max} players`;

export function renderGamesPage(input: { games: GameListing[]; account?: HeaderAccount }): RenderedPage {
  const body = html`<h1>Games</h1>
<p>In a <code>game</code> challenge, submissions are programs that play each other one turn at a time, each in its own sandbox; the matchmaker pairs the agents' latest validated programs and the weight class's ladder moves.</p>
<ul class="cards" id="games">${input.games.map(
    (g) =>
      html`<li class="card"><h2><a href="/games/${g.id}">${g.name}</a></h2><p class="facts"><span><code>${g.id}</code></span><span>${players(g)}</span><span>${g.simultaneous ? 'simultaneous moves' : 'one player at a time'}</span></p><p>${g.description}</p></li>`,
  )}</ul>`;
  return renderPage({ title: 'Games', body, account: input.account });
}

export function renderGamePage(input: { game: GameDetail; account?: HeaderAccount }): RenderedPage {
  const g = input.game;
  const body = html`<p class="muted small"><a href="/games">← All games</a></p>
<h1>${g.name}</h1>
<p class="facts"><span><code>${g.id}</code></span><span>${players(g)}</span><span>${g.simultaneous ? 'simultaneous moves' : 'one player at a time'}</span><span>at most ${g.max_turns} turns unless the challenge says otherwise</span></p>
<section aria-label="Rules" id="game-rules">
${markdownLite(g.rules)}
</section>
<h2>Play it at home</h2>
<p>The same reducer, referee and limits as the server, between local files (any of the eight languages) or the baseline bot <code>boss</code>:</p>
<pre id="play-at-home">npm run -s cli -- play --game ${g.id} boss ${g.boss.file}</pre>
<h2>The baseline bot (<code>boss</code>, ${g.boss.language})</h2>
<p class="muted small">Each game ships one you can beat; the console's dry run plays a challenge's sample program against it.</p>
<pre id="boss-source">${g.boss.source}</pre>
<h2>Line schemas</h2>
<p class="small">The JSON Schemas of an observation and of an action (also <a href="/api/v1/games/${g.id}">as JSON</a>).</p>
<h3>Observation</h3>
<pre id="observation-schema">${JSON.stringify(g.observation_schema, null, 2)}</pre>
<h3>Action</h3>
<pre id="action-schema">${JSON.stringify(g.action_schema, null, 2)}</pre>`;
  return renderPage({ title: g.name, body, account: input.account });
}

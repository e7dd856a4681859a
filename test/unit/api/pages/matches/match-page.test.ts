/**
 * The match and agent pages people can follow (issue 41, items 1–4): readable times, no countdown
 * on a game (its ends_at is a deadline), the start separator, the owner's stderr panel (escaped,
 * only when the route says the viewer reads a seat, only once revealed), the rating history per
 * weight class with each match's challenge.
 */
import { renderAgentPage, renderMatchPage } from '../../../../../src/api/pages/matches/view';
import type { PageHold } from '../../../../../src/domain/matches/hold';
import type { MatchView } from '../../../../../src/domain/matches/views';
import { readableTime } from '../../../../../src/web/time';

const DELAY = 30_000;
const ADA = '00000000-0000-4000-8000-00000000000a';
const BOB = '00000000-0000-4000-8000-00000000000b';
const STARTED = '2026-01-01T00:00:01.000Z';
const COMPLETED = '2026-01-01T00:00:02.000Z';
const spectator = (now: Date): PageHold => ({ viewer: { atOnce: false }, now, delayMs: DELAY });
const during = new Date(Date.parse(COMPLETED) + 1000);
const after = new Date(Date.parse(COMPLETED) + DELAY + 1);

function game(over: Partial<MatchView> = {}): MatchView {
  const seat = (agent_id: string, seatNo: number, outcome: 'win' | 'loss') => ({
    agent_id,
    agent_name: seatNo === 1 ? 'ada <i>' : 'bob',
    seat: seatNo,
    submission_id: null,
    score: outcome === 'win' ? 1 : -1,
    rank: seatNo,
    outcome,
    rating_before: null,
    rating_after: null,
  });
  return {
    id: '00000000-0000-4000-8000-0000000000m1',
    challenge_id: '00000000-0000-4000-8000-0000000000c1',
    weight_class_id: 'open',
    kind: 'game',
    status: 'complete',
    rated: false,
    reason: null,
    participants: [seat(ADA, 1, 'win'), seat(BOB, 2, 'loss')],
    scheduled_at: '2026-01-01T00:00:00.000Z',
    started_at: STARTED,
    // The service's deadline for a game, not when it will end.
    ends_at: '2026-01-01T00:12:01.000Z',
    completed_at: COMPLETED,
    result_id: '00000000-0000-4000-8000-0000000000r1',
    ...over,
  };
}

const textOf = (page: string) =>
  page
    .replace(/<script[\s\S]*?<\/script>/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ');
const render = (now: Date, extra: Partial<Parameters<typeof renderMatchPage>[0]> = {}) =>
  renderMatchPage({
    match: game(),
    hold: spectator(now),
    challengeTitle: 'Stacking',
    delayMs: DELAY,
    now,
    ...extra,
  }).html.toString();

test('readable times: day, month, year and seconds in UTC', () => {
  expect(readableTime('2026-11-29T03:59:30.123Z')).toBe('29 Nov 2026, 03:59:30 UTC');
  expect(readableTime(new Date('2026-01-01T00:00:01.000Z'))).toBe('1 Jan 2026, 00:00:01 UTC');
});

test('a game held by the page reads as running: no countdown, no end, readable start, filled cards', () => {
  const page = render(during);
  const text = textOf(page);
  expect(text).toContain('Started at 1 Jan 2026, 00:00:01 UTC');
  expect(text).not.toMatch(/Ends|Finished|00:12:01|00:00:02/);
  expect(text).not.toMatch(/\d{4}-\d\d-\d\dT/);
  expect(page).toContain('"endsAt":null');
  expect(page).toContain('"completedAt":null');
  expect(text.match(/Seat \d · not rated yet in open/g)).toHaveLength(2);
  expect(text).toContain('Start of the match · 1 Jan 2026, 00:00:01 UTC');
  expect(page).toContain('ada &lt;i&gt;');
});

test('a finished match says when it finished, readably, and the page keeps the end for its script', () => {
  const text = textOf(render(after));
  expect(text).toContain('Finished at 1 Jan 2026, 00:00:02 UTC');
  expect(text).not.toMatch(/\d{4}-\d\d-\d\dT/);
  expect(render(after)).toContain(`"completedAt":"${COMPLETED}"`);
});

test('a bout still counts down to its scheduled end', () => {
  const page = renderMatchPage({
    match: game({ kind: 'bout', status: 'running', completed_at: null, result_id: null }),
    hold: spectator(during),
    challengeTitle: 'Talk',
    delayMs: DELAY,
    now: during,
  }).html.toString();
  expect(page).toContain('"endsAt":"2026-01-01T00:12:01.000Z"');
  expect(textOf(page)).toContain('ends at 1 Jan 2026, 00:12:01 UTC');
});

test('the stderr panel: none for a spectator, a note while held, the escaped log once revealed', () => {
  const logs = [
    {
      agent_id: ADA,
      agent_name: 'ada <i>',
      seat: 1,
      games: [{ game: 1, seat: 1, stderr: '<script>alert(1)</script> debug', fault: null }],
    },
  ];
  expect(render(after, { logs: [], readsLogs: false })).not.toContain('id="stderr-panel"');
  const held = render(during, { logs: [], readsLogs: true });
  expect(held).toContain('id="stderr-pending"');
  const shown = render(after, { logs, readsLogs: true });
  expect(shown).toContain('id="stderr-panel"');
  expect(shown).toContain('&lt;script&gt;alert(1)&lt;/script&gt; debug');
  expect(shown).not.toContain('<script>alert(1)');
  expect(shown).toMatch(
    /<pre class="log" tabindex="0" role="region" aria-label="Stderr of ada &lt;i&gt; in game 1">/,
  );
});

test('the agent page: one labelled rating history per weight class, each match with its challenge', () => {
  const rated = (
    id: string,
    wc: string,
    challenge: string,
    at: string,
    before: number,
    after: number,
  ): MatchView =>
    game({
      id,
      kind: 'bout',
      rated: true,
      weight_class_id: wc,
      challenge_id: challenge,
      started_at: at,
      completed_at: at,
      participants: [
        {
          ...game().participants[0],
          rating_before: { mu: 1, sigma: 1, ordinal: before },
          rating_after: { mu: 1, sigma: 1, ordinal: after },
        },
        game().participants[1],
      ],
    });
  const A = '00000000-0000-4000-8000-0000000000ca';
  const B = '00000000-0000-4000-8000-0000000000cb';
  // Newest first, as the reads list them.
  const matches = [
    rated('00000000-0000-4000-8000-0000000000m3', 'light', B, '2026-01-03T00:00:00.000Z', 20, 17),
    rated('00000000-0000-4000-8000-0000000000m2', 'heavy', A, '2026-01-02T00:00:00.000Z', 3, 5),
    rated('00000000-0000-4000-8000-0000000000m1', 'heavy', A, '2026-01-01T00:00:00.000Z', 0, 3),
  ];
  const page = renderAgentPage({
    agentId: ADA,
    agentName: 'ada',
    matches,
    hold: spectator(new Date('2026-02-01T00:00:00.000Z')),
    challengeTitles: new Map([
      [A, 'Alpha <b>'],
      [B, 'Beta'],
    ]),
  }).html.toString();
  const sections = page.split('<section class="weight-class"').slice(1);
  expect(sections).toHaveLength(2);
  expect(sections[0]).toContain('Weight class heavy');
  expect(sections[0]).toContain('Alpha &lt;b&gt;');
  expect(sections[0]).not.toContain('Beta');
  expect(sections[0].indexOf('3.00')).toBeLessThan(sections[0].indexOf('5.00'));
  expect(sections[1]).toContain('Weight class light');
  expect(sections[1]).toContain('17.00');
  expect(textOf(page)).toContain('2 Jan 2026, 00:00:00 UTC');
  expect(textOf(page)).not.toMatch(/\d{4}-\d\d-\d\dT/);
});

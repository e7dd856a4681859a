/**
 * The arena's renderers apply the hold (domain/matches/hold.ts) to every match they show: until
 * completed_at + the delay a spectator's agent, match and challenge pages read as if the match
 * were still going (no "complete", no outcome, no rating change, no rating-history point);
 * operators see the outcome at once; after the hold everyone does.
 */
import { renderAgentPage, renderMatchPage } from '../../../../../src/api/pages/matches/view';
import { renderChallengePage } from '../../../../../src/api/pages/challenges/view';
import type { PageHold } from '../../../../../src/domain/matches/hold';
import type { MatchView } from '../../../../../src/domain/matches/views';

const DELAY = 1500;
const COMPLETED = '2026-01-01T00:04:00.000Z';
const during = new Date(Date.parse(COMPLETED) + 400);
const after = new Date(Date.parse(COMPLETED) + DELAY);
const spectatorAt = (now: Date): PageHold => ({ viewer: { atOnce: false }, now, delayMs: DELAY });
const operatorAt = (now: Date): PageHold => ({ viewer: { atOnce: true }, now, delayMs: DELAY });

const ADA = '00000000-0000-4000-8000-00000000000a';
const BOB = '00000000-0000-4000-8000-00000000000b';

function finished(id: string, completedAt: string, ordinals: [number, number]): MatchView {
  return {
    id,
    challenge_id: '00000000-0000-4000-8000-0000000000c1',
    weight_class_id: 'open',
    kind: 'bout',
    status: 'complete',
    rated: true,
    reason: null,
    participants: [
      {
        agent_id: ADA,
        agent_name: 'ada',
        seat: 1,
        submission_id: '00000000-0000-4000-8000-0000000000s1',
        score: 100,
        rank: 1,
        outcome: 'win',
        rating_before: { mu: 25, sigma: 8, ordinal: ordinals[0] },
        rating_after: { mu: 28, sigma: 7, ordinal: ordinals[1] },
      },
      {
        agent_id: BOB,
        agent_name: 'bob',
        seat: 2,
        submission_id: null,
        score: 0,
        rank: 2,
        outcome: 'loss',
        rating_before: { mu: 25, sigma: 8, ordinal: 1 },
        rating_after: { mu: 22, sigma: 7, ordinal: -4 },
      },
    ],
    scheduled_at: '2026-01-01T00:00:00.000Z',
    started_at: '2026-01-01T00:00:01.000Z',
    ends_at: '2026-01-01T00:10:01.000Z',
    completed_at: completedAt,
    result_id: '00000000-0000-4000-8000-0000000000r1',
  };
}

// An older match whose hold ended long ago, and the one that has just completed.
const older = finished('00000000-0000-4000-8000-000000000001', '2026-01-01T00:01:00.000Z', [0.5, 1.25]);
const latest = finished('00000000-0000-4000-8000-000000000002', COMPLETED, [1.25, 7.75]);

const agentPage = (hold: PageHold) =>
  String(renderAgentPage({ agentId: ADA, agentName: 'ada', matches: [latest, older], hold }).html);

describe('the agent page', () => {
  test('during the hold: the match runs, no outcome, no new rating, no history point', () => {
    const page = agentPage(spectatorAt(during));
    const row = page.slice(page.indexOf(`/matches/${latest.id}`));
    expect(row.slice(0, row.indexOf('</tr>'))).toMatch(/<td>running<\/td>.*<td>–<\/td>$/);
    expect(page.match(/<td>complete<\/td>/g)).toHaveLength(1); // the older match only
    expect(page.match(/<td>win<\/td>/g)).toHaveLength(1);
    expect(page).not.toContain('7.75');
    expect(page).not.toContain(COMPLETED);
  });

  test('after the hold, and for operators at once: the result and the rating point', () => {
    for (const page of [agentPage(spectatorAt(after)), agentPage(operatorAt(during))]) {
      expect(page.match(/<td>complete<\/td>/g)).toHaveLength(2);
      expect(page.match(/<td>win<\/td>/g)).toHaveLength(2);
      expect(page).toContain('<td class="num">7.75</td>');
      expect(page).toContain(COMPLETED);
    }
  });
});

const matchPage = (hold: PageHold) =>
  String(
    renderMatchPage({ match: latest, hold, challengeTitle: 'Arena', delayMs: DELAY, now: hold.now }).html,
  );

describe('the match page', () => {
  test('during the hold: running, the result pending, nothing of the end in the page or its script', () => {
    const page = matchPage(spectatorAt(during));
    expect(page).toContain('<span class="badge" id="match-status">running</span>');
    expect(page).toContain('id="result-pending"');
    expect(page).not.toMatch(/>win</);
    expect(page).not.toContain('+6.50');
    expect(page).toContain('"revealed":false');
  });

  test('after the hold, and for operators at once: complete, with the result and rating change', () => {
    for (const page of [matchPage(spectatorAt(after)), matchPage(operatorAt(during))]) {
      expect(page).toContain('<span class="badge" id="match-status">complete</span>');
      expect(page).toMatch(/<td>win<\/td><td class="num">\+6\.50<\/td>/);
      expect(page).toContain('"revealed":true');
    }
  });
});

describe('the challenge page', () => {
  const challenge = {
    id: '00000000-0000-4000-8000-0000000000c1',
    title: 'Arena',
    description: 'd',
    category: 'c',
    format: 'head_to_head',
    weight_class_id: 'open',
    status: 'active' as const,
    time_limit_minutes: 10,
    entry_fee_cents: null,
    prize_pool: null,
    starts_at: null,
    ends_at: null,
    is_featured: false,
    is_daily: false,
    judge: {},
    match: { every_minutes: 10 },
    max_submissions_per_session: 5,
    max_submissions_per_day: null,
    final_submissions: 2,
    freeze_minutes: 0,
    quarantine_reason: null,
    created_by: 'x',
    created_at: new Date(0),
    updated_at: new Date(0),
    started_event_at: null,
    ended_event_at: null,
    published_at: new Date(0),
    quarantined_at: null,
    retired_at: null,
    version: 1,
    entry_count: 2,
  };
  const page = (hold?: PageHold) =>
    String(
      renderChallengePage({
        challenge: challenge as never,
        entries: [],
        hasMore: false,
        baseUrl: 'http://x',
        recentMatches: [latest, older],
        ratingBoard: [],
        ...(hold ? { matchHold: hold } : {}),
      }).html,
    );
  const statusOf = (markup: string, id: string) =>
    markup.match(new RegExp(`<tr data-match-id="${id}">.*?</td><td>([a-z]+)</td>`))?.[1];

  test('a match still held is listed as running; its status shows once the hold ends', () => {
    expect(statusOf(page(spectatorAt(during)), latest.id)).toBe('running');
    expect(statusOf(page(spectatorAt(during)), older.id)).toBe('complete');
    expect(statusOf(page(spectatorAt(after)), latest.id)).toBe('complete');
    expect(statusOf(page(operatorAt(during)), latest.id)).toBe('complete');
  });

  test('without a hold from its route, no finished match is shown as finished', () => {
    expect(statusOf(page(), latest.id)).toBe('running');
    expect(statusOf(page(), older.id)).toBe('running');
  });

  test('a rating board is not refreshed from the API (it has ratings at completion)', () => {
    expect(page(spectatorAt(during))).toMatch(
      /if \(config\.board === 'rating'\) return;\s*setInterval\(refresh/,
    );
  });
});

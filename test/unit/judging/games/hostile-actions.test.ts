/**
 * Issue 37, finding 3: whatever a player sends as its action is judged (DESIGN, "Whatever a
 * program writes is data"): nesting beyond 64, a lone surrogate, NUL or a number beyond the double
 * range is `invalid`, the player loses that game, its replay step holds `action: null`, and
 * nothing makes the referee throw. Players here are in-memory channels (no process).
 */
import { findGame } from '../../../../src/judging/games/catalog';
import { resimulate } from '../../../../src/judging/games/game-run';
import type { PlayerChannel, TurnResult } from '../../../../src/judging/games/player';
import { MAX_ACTION_DEPTH, parseAnswer } from '../../../../src/judging/games/protocol';
import { refereeGame } from '../../../../src/judging/games/referee';

const connectFour = findGame('connect-four')!;
const limits = { turnMs: 200, bankMs: 300, maxTurns: 42 };

const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

/** A player answering `answer(turn line)` every turn; `ended` records the end line it got. */
function scripted(answer: (line: { observation: { legal_actions: unknown[] } }) => string) {
  const ended: (string | undefined)[] = [];
  const player: PlayerChannel = {
    turn: async (line): Promise<TurnResult> => ({
      kind: 'line',
      text: answer(JSON.parse(line) as { observation: { legal_actions: unknown[] } }),
      cpuMs: 1,
    }),
    close: async (endLine) => {
      ended.push(endLine);
    },
    stderr: () => '',
    kill: () => {},
  };
  return { player, ended };
}

const firstLegal = () => scripted((m) => JSON.stringify({ action: m.observation.legal_actions[0] }));

describe('parseAnswer: the DESIGN limits', () => {
  it.each([
    ['a 6,000-deep array', `{"action": ${nested(6000)}}`, /nested deeper than 64/],
    [
      'a 100,000-deep object nest',
      `{"action": ${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}}`,
      /nested deeper/,
    ],
    [`depth ${MAX_ACTION_DEPTH + 1}`, `{"action": ${nested(MAX_ACTION_DEPTH + 1)}}`, /nested deeper/],
    ['a lone high surrogate', '{"action": "\\ud800"}', /lone surrogate/],
    ['a lone low surrogate in a key', '{"action": {"\\udc00x": 1}}', /lone surrogate/],
    ['a reversed pair', '{"action": ["\\ude00\\ud83d"]}', /lone surrogate/],
    ['an escaped NUL', '{"action": "a\\u0000b"}', /NUL/],
    ['1e999', '{"action": 1e999}', /beyond the double range/],
    ['-1e999 deep inside', '{"action": [{"x": [-1e999]}]}', /beyond the double range/],
  ])('%s is refused with its reason', (_what, line, reason) => {
    const parsed = parseAnswer(line);
    expect(parsed).toEqual({ ok: false, reason: expect.stringMatching(reason) });
  });

  it.each([
    ['depth 64 exactly', `{"action": ${nested(MAX_ACTION_DEPTH)}}`],
    ['brackets inside strings do not count', `{"action": "${'['.repeat(1000)}"}`],
    ['a surrogate pair (an emoji)', '{"action": "\\ud83d\\ude00 ok"}'],
    ['a large finite number', '{"action": 1e308}'],
    ['an escaped quote before brackets', `{"action": ["\\"${'['.repeat(100)}"]}`],
  ])('%s is accepted', (_what, line) => {
    expect(parseAnswer(line)).toMatchObject({ ok: true });
  });
});

describe('the referee facing hostile actions', () => {
  it.each([
    ['a 6,000-deep action', nested(6000)],
    ['a lone surrogate', '"\\ud800"'],
    ['a NUL in a string', '"\\u0000"'],
    ['1e999', '1e999'],
  ])('%s: that player loses, the game ends, its step holds action null', async (_what, action) => {
    const bad = scripted(() => `{"action": ${action}}`);
    const good = firstLegal();
    const game = await refereeGame({
      engine: connectFour,
      seed: 7,
      seats: ['bad', 'good'],
      players: [bad.player, good.player],
      limits,
    });
    expect(game.faults).toEqual([
      expect.objectContaining({ seat: 1, turn: 1, fault: 'invalid', reason: expect.any(String) }),
    ]);
    expect(game.record.statuses).toEqual(['invalid', 'done']);
    expect(game.record.rewards).toEqual([-1, 1]);
    expect(game.record.steps).toHaveLength(2);
    expect(game.record.steps[1][0]).toMatchObject({ action: null, status: 'invalid' });
    // The record is storable JSON: it serialises, without lone surrogates or NUL, and re-simulates.
    const text = JSON.stringify(game.record);
    expect(text).not.toMatch(/\\ud8|\\udc|\\u0000/i);
    expect(resimulate(connectFour, JSON.parse(text), limits.maxTurns)).toEqual(game.record);
    // Both players got the end line.
    expect(bad.ended[0]).toMatch(/"done":true/);
    expect(good.ended[0]).toMatch(/"done":true/);
  });

  it('a hostile action in a later turn ends the game there (seat 2)', async () => {
    let turns = 0;
    const bad = scripted((m) =>
      ++turns < 3
        ? JSON.stringify({ action: m.observation.legal_actions[0] })
        : `{"action": ${nested(6000)}}`,
    );
    const game = await refereeGame({
      engine: connectFour,
      seed: 8,
      seats: ['good', 'bad'],
      players: [firstLegal().player, bad.player],
      limits,
    });
    expect(game.record.statuses).toEqual(['done', 'invalid']);
    expect(game.faults).toEqual([expect.objectContaining({ seat: 2, turn: 6, fault: 'invalid' })]);
    expect(game.record.steps[6][1]).toMatchObject({ action: null, status: 'invalid' });
  });
});

import { gameMatchCapMs, matchWallCapMs, participantLogs } from '../../../../src/domain/games/rules';
import { checkGameChallenge, placeGame } from '../../../../src/domain/matches/rules';

describe('placeGame (the outcome is the sum of the game rewards)', () => {
  it('ranks by total: the higher wins, the lower loses', () => {
    expect(
      placeGame([
        { agentId: 'a', total: -2, submissionId: 's1' },
        { agentId: 'b', total: 2, submissionId: 's2' },
      ]),
    ).toEqual([
      { agentId: 'a', rank: 2, score: -2, submissionId: 's1', outcome: 'loss' },
      { agentId: 'b', rank: 1, score: 2, submissionId: 's2', outcome: 'win' },
    ]);
  });

  it('equal totals share a rank and draw; a participant without a program forfeits, last', () => {
    expect(
      placeGame([
        { agentId: 'a', total: 0, submissionId: 's1' },
        { agentId: 'b', total: 0, submissionId: 's2' },
        { agentId: 'c', total: null, submissionId: null },
      ]).map((p) => [p.agentId, p.rank, p.outcome]),
    ).toEqual([
      ['a', 1, 'draw'],
      ['b', 1, 'draw'],
      ['c', 3, 'forfeit'],
    ]);
  });
});

describe('the whole-match wall cap', () => {
  it('grows with games, bank, turn time and turns, and includes the builds', () => {
    const small = matchWallCapMs({ turn_ms: 100, bank_ms: 300, games_per_match: 1 }, 2, 42);
    expect(small).toBe(2 * (2 * 5300 + 2 * 42 * 100) + 4200 + 2000 + 10_000 + 120_000);
    expect(matchWallCapMs({ turn_ms: 100, bank_ms: 300, games_per_match: 2 }, 2, 42)).toBe(
      2 * (small - 120_000) + 120_000,
    );
  });

  it('reads a stored game judge with its defaults and the game own turn limit', () => {
    expect(gameMatchCapMs({ kind: 'game', game: 'connect-four' }, 2)).toBe(
      matchWallCapMs({ turn_ms: 1000, bank_ms: 10_000, games_per_match: 2 }, 2, 42),
    );
  });
});

describe('participantLogs', () => {
  it('gives each game its seat (rotating) and the fault of that game', () => {
    const result = {
      logs: ['first', 'second'],
      faults: [{ game: 1, seat: 1, turn: 3, fault: 'error' as const, reason: 'crash' }],
    };
    expect(participantLogs(result, 1, 2)).toEqual([
      { game: 1, seat: 2, stderr: 'first', fault: null },
      { game: 2, seat: 1, stderr: 'second', fault: { kind: 'error', turn: 3, reason: 'crash' } },
    ]);
  });
});

describe('checkGameChallenge (DESIGN: format game requires a game judge and players in range)', () => {
  it('refuses a game challenge without a game judge, or with players outside the game', () => {
    expect(() => checkGameChallenge({ format: 'game', judge: { kind: 'rubric' }, match: {} })).toThrow(
      /judge of kind "game"/,
    );
    expect(() =>
      checkGameChallenge({
        format: 'game',
        judge: { kind: 'game', game: 'connect-four' },
        match: { players: 3 },
      }),
    ).toThrow(/Connect Four is played by 2 to 2 players/);
    expect(() =>
      checkGameChallenge({
        format: 'game',
        judge: { kind: 'game', game: 'light-cycles' },
        match: { players: 4 },
      }),
    ).not.toThrow();
    expect(() => checkGameChallenge({ format: 'solo', judge: { kind: 'game' }, match: null })).not.toThrow();
  });
});

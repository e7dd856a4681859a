import { gameMaxTurns, judgeConfigSchema } from '../../../../src/judging/config';
import { slotsForJudge } from '../../../../src/domain/judging-queue/order';
import { judgePublicView } from '../../../../src/judging/public-view';

describe('the game judge config (DESIGN ranges)', () => {
  it('applies the defaults', () => {
    expect(judgeConfigSchema.parse({ kind: 'game', game: 'connect-four' })).toEqual({
      kind: 'game',
      game: 'connect-four',
      turn_ms: 1000,
      bank_ms: 10000,
      memory_mb: 256,
      games_per_match: 2,
    });
  });

  it.each([
    [{ game: 'chess' }],
    [{ game: 'connect-four', turn_ms: 9 }],
    [{ game: 'connect-four', turn_ms: 10001 }],
    [{ game: 'connect-four', bank_ms: -1 }],
    [{ game: 'connect-four', bank_ms: 60001 }],
    [{ game: 'connect-four', memory_mb: 31 }],
    [{ game: 'connect-four', memory_mb: 1025 }],
    [{ game: 'connect-four', games_per_match: 0 }],
    [{ game: 'connect-four', games_per_match: 10 }],
    [{ game: 'connect-four', max_turns: 0 }],
    [{ game: 'connect-four', languages: ['cobol'] }],
    [{ game: 'connect-four', surprise: true }],
  ])('refuses %j', (fields) => {
    expect(judgeConfigSchema.safeParse({ kind: 'game', ...fields }).success).toBe(false);
  });

  it('accepts the bounds', () => {
    for (const fields of [
      { turn_ms: 10, bank_ms: 0, memory_mb: 32, games_per_match: 1, max_turns: 1 },
      { turn_ms: 10000, bank_ms: 60000, memory_mb: 1024, games_per_match: 9, languages: ['python', 'c'] },
    ]) {
      expect(judgeConfigSchema.safeParse({ kind: 'game', game: 'light-cycles', ...fields }).success).toBe(
        true,
      );
    }
  });

  it('max_turns never goes beyond the game’s own', () => {
    expect(gameMaxTurns({ game: 'connect-four', max_turns: 1000 })).toBe(42);
    expect(gameMaxTurns({ game: 'connect-four', max_turns: 10 })).toBe(10);
    expect(gameMaxTurns({ game: 'light-cycles' })).toBe(144);
  });

  it('a game judging holds one queue slot per player of its self-play game', () => {
    expect(slotsForJudge({ kind: 'game', game: 'connect-four' }, 4)).toBe(2);
    expect(slotsForJudge({ kind: 'game', game: 'light-cycles' }, 4)).toBe(2);
  });

  it('the public view names the game, the languages and the limits', () => {
    expect(
      judgePublicView({ kind: 'game', game: 'light-cycles', turn_ms: 300, languages: ['python'] }),
    ).toMatchObject({
      kind: 'game',
      game: 'light-cycles',
      languages: ['python'],
      limits: {
        time_limit_ms: 300,
        turn_ms: 300,
        bank_ms: 10000,
        memory_mb: 256,
        games_per_match: 2,
        max_turns: null,
      },
    });
  });
});

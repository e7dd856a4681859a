import { GAMES, findGame, gameListing } from '../../../../src/judging/games/catalog';
import type { GameEngine, JsonValue } from '../../../../src/judging/games/engine';
import { GameRun, resimulate, type TurnAnswer } from '../../../../src/judging/games/game-run';
import { seededRng } from '../../../../src/judging/games/rng';

/** Plays a whole game with actions drawn from `seed` among the legal ones. */
function randomGame(engine: GameEngine, seats: number, seed: number, maxTurns = engine.defaultMaxTurns) {
  const run = new GameRun(engine, seats, seed, maxTurns);
  const rng = seededRng(seed ^ 0x5bd1e995);
  while (!run.over) {
    const answers = new Map<number, TurnAnswer>();
    for (const seat of run.pending()) {
      const legal = run.observation(seat).legal_actions;
      answers.set(seat, { kind: 'action', action: legal[rng.int(legal.length)] });
    }
    run.play(answers);
  }
  return run;
}

const seatLabels = (n: number) => Array.from({ length: n }, (_, i) => `p${i + 1}`);

describe('the game catalog', () => {
  it('lists a sequential two-player game and a simultaneous one, each with rules, schemas and a boss bot', () => {
    const listings = GAMES.map(gameListing);
    expect(listings).toContainEqual({
      id: 'connect-four',
      name: 'Connect Four',
      players: { min: 2, max: 2 },
      simultaneous: false,
      description: expect.any(String),
    });
    const simultaneous = listings.find((game) => game.simultaneous);
    expect(simultaneous?.players.min).toBe(2);
    expect(simultaneous!.players.max).toBeGreaterThanOrEqual(2);
    for (const game of GAMES) {
      expect(game.rules).toMatch(/legal_actions/);
      expect(game.observationSchema).toHaveProperty('type', 'object');
      expect(game.boss.source).toMatch(/done/);
    }
  });
});

describe.each(GAMES.map((game) => [game.id, game] as const))('%s', (_id, engine) => {
  const counts = Array.from(
    { length: engine.players.max - engine.players.min + 1 },
    (_, i) => engine.players.min + i,
  );

  it.each(counts)('same seed and actions give the same replay (%i players), and re-simulates', (seats) => {
    for (const seed of [1, 42, 987654]) {
      const a = randomGame(engine, seats, seed).record(seatLabels(seats));
      const b = randomGame(engine, seats, seed).record(seatLabels(seats));
      expect(b).toEqual(a);
      expect(resimulate(engine, a, engine.defaultMaxTurns)).toEqual(a);
      // The replay's shape: steps[0] before turn 1, one entry per seat, rewards and statuses per seat.
      expect(a.steps[0]).toHaveLength(seats);
      expect(a.rewards).toHaveLength(seats);
      expect(a.statuses.every((status) => status === 'done')).toBe(true);
      for (const step of a.steps)
        for (const entry of step)
          expect(Object.keys(entry).sort()).toEqual(['action', 'observation', 'reward', 'status']);
    }
  });

  it('ends every game within max_turns, with rewards that name a winner or a draw', () => {
    for (let seed = 0; seed < 30; seed++) {
      const seats = engine.players.min;
      const run = randomGame(engine, seats, seed);
      expect(run.turn).toBeLessThanOrEqual(engine.defaultMaxTurns);
      const rewards = run.rewards();
      const winners = rewards.filter((reward) => reward === 1).length;
      expect(winners === 1 || rewards.every((reward) => reward <= 0)).toBe(true);
    }
    const short = randomGame(engine, engine.players.min, 7, 3);
    expect(short.turn).toBeLessThanOrEqual(3);
  });

  it('only the seats to move have legal actions, and legal_actions are exactly what isLegal accepts', () => {
    const run = new GameRun(engine, engine.players.min, 3, engine.defaultMaxTurns);
    const movers = run.pending();
    expect(movers.length).toBe(engine.simultaneous ? engine.players.min : 1);
    for (let seat = 1; seat <= engine.players.min; seat++) {
      const legal = run.observation(seat).legal_actions;
      if (!movers.includes(seat)) expect(legal).toEqual([]);
      for (const action of legal) expect(engine.isLegal(run.state(), seat, action)).toBe(true);
    }
  });

  it('an illegal action is the seat\u2019s `invalid`: it loses, the others win, the game ends', () => {
    const seats = engine.players.max;
    const run = new GameRun(engine, seats, 5, engine.defaultMaxTurns);
    const [first] = run.pending();
    const answers = new Map<number, TurnAnswer>();
    for (const seat of run.pending()) {
      answers.set(
        seat,
        seat === first
          ? { kind: 'action', action: 'not-a-move' as JsonValue }
          : { kind: 'action', action: run.observation(seat).legal_actions[0] },
      );
    }
    run.play(answers);
    expect(run.over).toBe(true);
    const statuses = run.statuses();
    expect(statuses[first - 1]).toBe('invalid');
    expect(run.rewards()[first - 1]).toBe(-1);
    for (let seat = 1; seat <= seats; seat++) {
      if (seat !== first) {
        expect(statuses[seat - 1]).toBe('done');
        expect(run.rewards()[seat - 1]).toBe(1);
      }
    }
    const record = run.record(seatLabels(seats));
    expect(record.steps[1][first - 1]).toMatchObject({ action: 'not-a-move', status: 'invalid', reward: -1 });
    expect(resimulate(engine, record, engine.defaultMaxTurns)).toEqual(record);
  });

  it('a timeout and a crash end the game the same way, and re-simulate', () => {
    for (const fault of ['timeout', 'error'] as const) {
      const run = new GameRun(engine, engine.players.min, 9, engine.defaultMaxTurns);
      const movers = run.pending();
      run.play(new Map(movers.map((seat) => [seat, { kind: 'fault', fault }] as const)));
      expect(run.statuses().filter((status) => status === fault)).toHaveLength(movers.length);
      const record = run.record(seatLabels(engine.players.min));
      expect(resimulate(engine, record, engine.defaultMaxTurns)).toEqual(record);
    }
  });
});

describe('connect-four rules', () => {
  const engine = findGame('connect-four')!;
  const play = (columns: number[]) => {
    const run = new GameRun(engine, 2, 0, 42);
    for (const column of columns) {
      run.play(new Map([[run.pending()[0], { kind: 'action', action: column }]]));
    }
    return run;
  };

  it('four in a column wins for the seat that made it', () => {
    const run = play([3, 4, 3, 4, 3, 4, 3]);
    expect(run.over).toBe(true);
    expect(run.rewards()).toEqual([1, -1]);
  });

  it('a full column is not a legal action', () => {
    const run = play([0, 0, 0, 0, 0, 0]);
    expect(run.observation(1).legal_actions).not.toContain(0);
    expect(engine.isLegal(run.state(), 1, 0)).toBe(false);
    expect(engine.isLegal(run.state(), 2, 1)).toBe(false); // not seat 2's turn
  });

  it('the observation carries the board, the seat\u2019s mark and the legal columns', () => {
    const run = play([3]);
    const observation = run.observation(2);
    expect(observation.mark).toBe(2);
    expect((observation.board as number[][])[5][3]).toBe(1);
    expect(observation.legal_actions).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });
});

describe('light-cycles rules', () => {
  const engine = findGame('light-cycles')!;

  it('cycles riding straight crash; the game ends with one winner or a draw', () => {
    const run = new GameRun(engine, 2, 11, 200);
    while (!run.over) {
      const answers = new Map<number, TurnAnswer>();
      for (const seat of run.pending()) {
        const observation = run.observation(seat);
        const me = (observation.players as { direction: string }[])[seat - 1];
        answers.set(seat, { kind: 'action', action: me.direction });
      }
      run.play(answers);
    }
    const rewards = run.rewards();
    expect(rewards.every((reward) => reward === 0) || rewards.includes(1)).toBe(true);
  });

  it('the seed places the walls and the corners; the same seed places them the same', () => {
    const a = engine.init(4, 1, 100);
    const b = engine.init(4, 1, 100);
    const c = engine.init(4, 2, 100);
    expect(a).toEqual(b);
    expect(JSON.stringify(a) === JSON.stringify(c)).toBe(false);
  });
});

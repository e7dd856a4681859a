/**
 * Light cycles (simultaneous moves, 2–4 players): every cycle moves one cell per turn, all at
 * once, leaving a wall behind it; a cycle that leaves the grid, hits a wall or trail, or meets
 * another head on the same cell crashes. The last one riding wins.
 */
import { type GameEngine, type JsonValue, type Observation } from '../engine';
import { seededRng } from '../rng';
import { LIGHT_CYCLES_BOSS } from './boss';

const SIZE = 12;
const DIRECTIONS = ['up', 'right', 'down', 'left'] as const;
type Direction = (typeof DIRECTIONS)[number];
const DELTA: Record<Direction, [number, number]> = {
  up: [0, -1],
  right: [1, 0],
  down: [0, 1],
  left: [-1, 0],
};
const OPPOSITE: Record<Direction, Direction> = { up: 'down', down: 'up', left: 'right', right: 'left' };

export interface Cycle {
  [key: string]: JsonValue;
  x: number;
  y: number;
  direction: Direction;
  alive: boolean;
  /** The turn it crashed on (0 while alive). */
  crashedAt: number;
}

export interface LightCyclesState {
  [key: string]: JsonValue;
  size: number;
  /** Row-major: 0 empty, -1 wall, k the trail (or head) of seat k. */
  grid: number[];
  cycles: Cycle[];
  turn: number;
  maxTurns: number;
  over: boolean;
}

/** The four starting corners (x, y, heading), clockwise: a permutation of them is drawn per game. */
const CORNERS: [number, number, Direction][] = [
  [2, 2, 'right'],
  [SIZE - 3, 2, 'down'],
  [SIZE - 3, SIZE - 3, 'left'],
  [2, SIZE - 3, 'up'],
];

function legal(cycle: Cycle): Direction[] {
  return DIRECTIONS.filter((direction) => direction !== OPPOSITE[cycle.direction]);
}

const RULES = `# Light cycles

2 to 4 players ride light cycles on a ${SIZE}×${SIZE} grid. Every turn each cycle still riding moves
one cell, all at the same time, and leaves a wall (its trail) behind. A cycle crashes when it leaves
the grid, enters a wall or any trail, or when two heads enter the same cell. The last cycle riding
wins. The grid holds a few walls, placed from the game's seed with a four-fold symmetry, and the
seats start in corners drawn from the seed.

## Protocol
Simultaneous: every seat still riding gets a line each turn, \`{"turn", "seat", "observation",
"remaining_bank_ms"}\`, and answers one line \`{"action": "up" | "right" | "down" | "left"}\`
(turning back onto your own trail is not a legal action). At the end every player gets
\`{"done": true, "rewards", "statuses"}\`, then end of input.

## Observation
- \`grid\`: ${SIZE} rows of ${SIZE} numbers, row 0 at the top (y grows downwards); 0 empty, -1 wall,
  k the trail of seat k;
- \`seat\`: your seat; \`players\`: \`[{seat, x, y, direction, alive}]\` for every seat;
- \`turn\`: turns played so far; \`legal_actions\`: the directions you may take.

## Rewards
The last cycle riding 1, every other -1. Cycles that crash on the same turn as the last ones
share a draw (0); at \`max_turns\` the cycles still riding draw (0). An unparsable or illegal
action, a timeout or a crash loses the game (-1) and every other seat wins it (1).
`;

export const lightCycles: GameEngine<LightCyclesState> = {
  id: 'light-cycles',
  name: 'Light cycles',
  players: { min: 2, max: 4 },
  simultaneous: true,
  description: `Steer a light cycle on a ${SIZE}×${SIZE} grid, all players at once; every cycle leaves a wall behind it and the last one riding wins.`,
  rules: RULES,
  defaultMaxTurns: SIZE * SIZE,
  observationSchema: {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    required: ['grid', 'seat', 'players', 'turn', 'legal_actions'],
    properties: {
      grid: {
        type: 'array',
        minItems: SIZE,
        maxItems: SIZE,
        items: { type: 'array', minItems: SIZE, maxItems: SIZE, items: { type: 'integer', minimum: -1 } },
      },
      seat: { type: 'integer', minimum: 1, maximum: 4 },
      turn: { type: 'integer', minimum: 0 },
      players: {
        type: 'array',
        items: {
          type: 'object',
          required: ['seat', 'x', 'y', 'direction', 'alive'],
          properties: {
            seat: { type: 'integer' },
            x: { type: 'integer' },
            y: { type: 'integer' },
            direction: { enum: [...DIRECTIONS] },
            alive: { type: 'boolean' },
          },
        },
      },
      legal_actions: { type: 'array', items: { enum: [...DIRECTIONS] } },
    },
  },
  actionSchema: { enum: [...DIRECTIONS] },
  init(seats, seed, maxTurns) {
    if (seats < 2 || seats > 4) throw new Error('light-cycles is played by 2 to 4 players');
    const rng = seededRng(seed);
    // Corners in a drawn order; two players take opposite corners.
    const order = [0, 1, 2, 3];
    for (let i = order.length - 1; i > 0; i--) {
      const j = rng.int(i + 1);
      [order[i], order[j]] = [order[j], order[i]];
    }
    const corners = seats === 2 ? [order[0], (order[0] + 2) % 4] : order.slice(0, seats);
    const grid = Array.from({ length: SIZE * SIZE }, () => 0);
    const cycles: Cycle[] = corners.map((corner, index) => {
      const [x, y, direction] = CORNERS[corner];
      grid[y * SIZE + x] = index + 1;
      return { x, y, direction, alive: true, crashedAt: 0 };
    });
    // Walls with four-fold rotational symmetry, away from the corners' start areas.
    const walls = 1 + rng.int(3);
    for (let placed = 0; placed < walls; placed++) {
      const x = 3 + rng.int(SIZE / 2 - 3);
      const y = 4 + rng.int(SIZE / 2 - 4);
      let [cx, cy] = [x, y];
      for (let rotation = 0; rotation < 4; rotation++) {
        if (grid[cy * SIZE + cx] === 0) grid[cy * SIZE + cx] = -1;
        [cx, cy] = [SIZE - 1 - cy, cx];
      }
    }
    return { size: SIZE, grid, cycles, turn: 0, maxTurns, over: false };
  },
  toMove: (state) =>
    state.over ? [] : state.cycles.flatMap((cycle, index) => (cycle.alive ? [index + 1] : [])),
  observe(state, seat): Observation {
    const grid: number[][] = [];
    for (let y = 0; y < SIZE; y++) grid.push(state.grid.slice(y * SIZE, (y + 1) * SIZE));
    const own = state.cycles[seat - 1];
    return {
      grid,
      seat,
      turn: state.turn,
      players: state.cycles.map((cycle, index) => ({
        seat: index + 1,
        x: cycle.x,
        y: cycle.y,
        direction: cycle.direction,
        alive: cycle.alive,
      })),
      legal_actions: !state.over && own?.alive ? legal(own) : [],
    };
  },
  isLegal(state, seat, action) {
    const cycle = state.cycles[seat - 1];
    return (
      !state.over &&
      cycle !== undefined &&
      cycle.alive &&
      typeof action === 'string' &&
      (legal(cycle) as string[]).includes(action)
    );
  },
  step(state, actions) {
    const turn = state.turn + 1;
    const grid = [...state.grid];
    const moved = state.cycles.map((cycle, index): Cycle => {
      if (!cycle.alive) return { ...cycle };
      const direction = actions.get(index + 1);
      if (typeof direction !== 'string' || !(legal(cycle) as string[]).includes(direction)) {
        throw new Error(`light-cycles: seat ${index + 1} has no legal action`);
      }
      const [dx, dy] = DELTA[direction as Direction];
      return { ...cycle, x: cycle.x + dx, y: cycle.y + dy, direction: direction as Direction };
    });
    const heads = new Map<number, number>();
    for (const cycle of moved) {
      if (!cycle.alive) continue;
      const key = cycle.y * SIZE + cycle.x;
      heads.set(key, (heads.get(key) ?? 0) + 1);
    }
    for (const cycle of moved) {
      if (!cycle.alive) continue;
      const inside = cycle.x >= 0 && cycle.x < SIZE && cycle.y >= 0 && cycle.y < SIZE;
      const key = cycle.y * SIZE + cycle.x;
      if (!inside || grid[key] !== 0 || (heads.get(key) ?? 0) > 1) {
        cycle.alive = false;
        cycle.crashedAt = turn;
      }
    }
    moved.forEach((cycle, index) => {
      if (cycle.alive) grid[cycle.y * SIZE + cycle.x] = index + 1;
    });
    const riding = moved.filter((cycle) => cycle.alive).length;
    return {
      size: SIZE,
      grid,
      cycles: moved,
      turn,
      maxTurns: state.maxTurns,
      over: riding <= 1 || turn >= state.maxTurns,
    };
  },
  outcome(state) {
    if (!state.over) return undefined;
    const riding = state.cycles.filter((cycle) => cycle.alive).length;
    if (riding === 1) return state.cycles.map((cycle) => (cycle.alive ? 1 : -1));
    if (riding > 1) return state.cycles.map((cycle) => (cycle.alive ? 0 : -1));
    // Every cycle is down: those that crashed last share a draw.
    const last = Math.max(...state.cycles.map((cycle) => cycle.crashedAt));
    return state.cycles.map((cycle) => (cycle.crashedAt === last ? 0 : -1));
  },
  inGame: (state) => state.cycles.map((cycle) => !state.over && cycle.alive),
  boss: LIGHT_CYCLES_BOSS,
};

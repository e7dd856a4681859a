/**
 * Connect Four (sequential, two players): seat 1 drops first; the first to line up four of its
 * discs (row, column or diagonal) wins; a full board is a draw.
 */
import type { GameEngine, JsonValue, Observation } from '../engine';
import { CONNECT_FOUR_BOSS } from './boss';

const ROWS = 6;
const COLUMNS = 7;
const IN_A_ROW = 4;

export interface ConnectFourState {
  [key: string]: JsonValue;
  /** Row-major, row 0 at the top: 0 empty, else the seat whose disc it is. */
  board: number[];
  /** The seat to move. */
  next: number;
  turn: number;
  maxTurns: number;
  /** 0 while nobody has won (or a draw), else the winning seat. */
  winner: number;
  over: boolean;
}

function legalColumns(state: ConnectFourState): number[] {
  if (state.over) return [];
  const columns: number[] = [];
  for (let column = 0; column < COLUMNS; column++) if (state.board[column] === 0) columns.push(column);
  return columns;
}

function wins(board: readonly number[], row: number, column: number): boolean {
  const seat = board[row * COLUMNS + column];
  const at = (r: number, c: number) =>
    r >= 0 && r < ROWS && c >= 0 && c < COLUMNS ? board[r * COLUMNS + c] : -1;
  for (const [dr, dc] of [
    [0, 1],
    [1, 0],
    [1, 1],
    [1, -1],
  ]) {
    let count = 1;
    for (const sign of [1, -1]) {
      let r = row + sign * dr;
      let c = column + sign * dc;
      while (at(r, c) === seat) {
        count++;
        r += sign * dr;
        c += sign * dc;
      }
    }
    if (count >= IN_A_ROW) return true;
  }
  return false;
}

const RULES = `# Connect Four

Two players (seat 1 and seat 2) take turns dropping a disc into one of the ${COLUMNS} columns of a
board of ${ROWS} rows; the disc falls to the lowest empty cell. Seat 1 moves first. The first player
to line up ${IN_A_ROW} of its discs horizontally, vertically or diagonally wins; a full board (or
the judge's \`max_turns\`) is a draw.

## Protocol
Sequential: only the seat to move gets a line, \`{"turn", "seat", "observation", "remaining_bank_ms"}\`;
answer one line \`{"action": <column>}\`. At the end every player gets \`{"done": true, "rewards",
"statuses"}\`, then end of input.

## Observation
- \`board\`: ${ROWS} rows of ${COLUMNS} numbers, row 0 at the top; 0 empty, 1 or 2 the seat's disc;
- \`mark\`: your seat (1 or 2); \`rows\`, \`columns\`, \`inarow\`;
- \`legal_actions\`: the columns (0-based) that are not full.

## Rewards
Win 1, loss -1, draw 0. An unparsable or illegal action (a full column, anything not in
\`legal_actions\`), a timeout or a crash loses the game (-1) and the other seat wins it (1).
`;

export const connectFour: GameEngine<ConnectFourState> = {
  id: 'connect-four',
  name: 'Connect Four',
  players: { min: 2, max: 2 },
  simultaneous: false,
  description: `Drop discs into a ${COLUMNS}×${ROWS} grid, one player at a time; the first to line up ${IN_A_ROW} wins.`,
  rules: RULES,
  defaultMaxTurns: ROWS * COLUMNS,
  observationSchema: {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    required: ['board', 'mark', 'rows', 'columns', 'inarow', 'legal_actions'],
    properties: {
      board: {
        type: 'array',
        minItems: ROWS,
        maxItems: ROWS,
        items: {
          type: 'array',
          minItems: COLUMNS,
          maxItems: COLUMNS,
          items: { type: 'integer', minimum: 0, maximum: 2 },
        },
      },
      mark: { type: 'integer', minimum: 1, maximum: 2 },
      rows: { const: ROWS },
      columns: { const: COLUMNS },
      inarow: { const: IN_A_ROW },
      legal_actions: { type: 'array', items: { type: 'integer', minimum: 0, maximum: COLUMNS - 1 } },
    },
  },
  actionSchema: { type: 'integer', minimum: 0, maximum: COLUMNS - 1 },
  init(seats, _seed, maxTurns) {
    if (seats !== 2) throw new Error('connect-four is played by 2 players');
    return {
      board: Array.from({ length: ROWS * COLUMNS }, () => 0),
      next: 1,
      turn: 0,
      maxTurns: Math.min(maxTurns, ROWS * COLUMNS),
      winner: 0,
      over: false,
    };
  },
  toMove: (state) => (state.over ? [] : [state.next]),
  observe(state, seat): Observation {
    const board: number[][] = [];
    for (let row = 0; row < ROWS; row++) board.push(state.board.slice(row * COLUMNS, (row + 1) * COLUMNS));
    return {
      board,
      mark: seat,
      rows: ROWS,
      columns: COLUMNS,
      inarow: IN_A_ROW,
      legal_actions: !state.over && seat === state.next ? legalColumns(state) : [],
    };
  },
  isLegal: (state, seat, action) =>
    !state.over &&
    seat === state.next &&
    typeof action === 'number' &&
    Number.isInteger(action) &&
    legalColumns(state).includes(action),
  step(state, actions) {
    const column = actions.get(state.next);
    if (typeof column !== 'number' || !legalColumns(state).includes(column)) {
      throw new Error(`connect-four: seat ${state.next} has no legal action`);
    }
    const board = [...state.board];
    let row = ROWS - 1;
    while (board[row * COLUMNS + column] !== 0) row--;
    board[row * COLUMNS + column] = state.next;
    const turn = state.turn + 1;
    const won = wins(board, row, column);
    const full = board.slice(0, COLUMNS).every((cell) => cell !== 0);
    return {
      board,
      next: state.next === 1 ? 2 : 1,
      turn,
      maxTurns: state.maxTurns,
      winner: won ? state.next : 0,
      over: won || full || turn >= state.maxTurns,
    };
  },
  outcome(state) {
    if (!state.over) return undefined;
    if (state.winner === 0) return [0, 0];
    return state.winner === 1 ? [1, -1] : [-1, 1];
  },
  inGame: (state) => [!state.over, !state.over],
  boss: CONNECT_FOUR_BOSS,
};

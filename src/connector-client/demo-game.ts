/**
 * The demo agents in the seeded connect-four game (issue 31): `npm start` has each demo agent
 * submit one program to the `game` challenge, in two languages. Each is validated by a game against
 * itself; from then on the matchmaker plays the agents' latest validated programs against each
 * other every few minutes, so a person finds matches with replays (`/matches/{id}`) and a ladder
 * without writing a bot first. The programs speak the game's line protocol (GET /api/v1/games/
 * connect-four): one JSON line per turn in, `{"action": column}` out, until `{"done": true}`.
 */
import { ConnectorClient, idempotencyKeyFor } from './client';
import type { DemoPersona } from './demo';
import type { SubmissionFile } from '../wire/connector';

/** Ada's bot (Python): wins when it can, blocks the other seat's win, else plays nearest the centre. */
const ADA_PYTHON = `import json
import sys


def landing(board, column):
    for row in range(len(board) - 1, -1, -1):
        if board[row][column] == 0:
            return row
    return -1


def lines_up(board, row, column, mark, need):
    rows, columns = len(board), len(board[0])
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        count = 1
        for sign in (1, -1):
            r, c = row + sign * dr, column + sign * dc
            while 0 <= r < rows and 0 <= c < columns and board[r][c] == mark:
                count += 1
                r, c = r + sign * dr, c + sign * dc
        if count >= need:
            return True
    return False


def choose(obs):
    board, me, need, legal = obs["board"], obs["mark"], obs["inarow"], obs["legal_actions"]
    other = 2 if me == 1 else 1
    for mark in (me, other):  # my win first, then the block
        for column in legal:
            if lines_up(board, landing(board, column), column, mark, need):
                return column
    centre = (len(board[0]) - 1) / 2
    return min(legal, key=lambda c: (abs(c - centre), c))


for line in sys.stdin:
    message = json.loads(line)
    if message.get("done"):
        break
    print(json.dumps({"action": choose(message["observation"])}), flush=True)
`;

/** Basil's bot (JavaScript): no look-ahead, a random legal column weighted towards the centre. */
const BASIL_JAVASCRIPT = `const readline = require('node:readline');

const lines = readline.createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const message = JSON.parse(line);
  if (message.done) return lines.close();
  const { legal_actions: legal, columns } = message.observation;
  const centre = (columns - 1) / 2;
  const weights = legal.map((c) => columns - Math.abs(c - centre));
  let draw = Math.random() * weights.reduce((sum, w) => sum + w, 0);
  let action = legal[legal.length - 1];
  for (let i = 0; i < legal.length; i++) {
    draw -= weights[i];
    if (draw < 0) {
      action = legal[i];
      break;
    }
  }
  console.error('turn ' + message.turn + ': column ' + action);
  process.stdout.write(JSON.stringify({ action }) + '\\n');
});
`;

/** Each demo persona's program for the seeded connect-four game. */
export const DEMO_GAME_PROGRAMS: Record<DemoPersona, SubmissionFile> = {
  ada: { path: 'main.py', content: ADA_PYTHON, language: 'python' },
  basil: { path: 'main.js', content: BASIL_JAVASCRIPT, language: 'javascript' },
};

/**
 * Submits the persona's program to the game challenge (opening its session enters the agent).
 * The idempotency key is the program's: a retry after a lost answer gets the same submission.
 */
export async function submitDemoGameProgram(options: {
  client: ConnectorClient;
  challengeId: string;
  persona: DemoPersona;
  signal?: AbortSignal;
}): Promise<{ submissionId: string }> {
  const program = DEMO_GAME_PROGRAMS[options.persona];
  const { submission } = await options.client.submit(options.challengeId, program.path, [program], {
    signal: options.signal,
    idempotencyKey: idempotencyKeyFor('demo-game', options.persona, program.content),
  });
  return { submissionId: submission.id };
}

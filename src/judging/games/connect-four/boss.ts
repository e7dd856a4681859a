import type { BaselineBot } from '../engine';

/**
 * Connect Four's baseline ("boss") bot: wins when it can, blocks a win of the other seat, avoids
 * giving one away, else prefers the centre. Beatable by a little look-ahead.
 */
export const CONNECT_FOUR_BOSS: BaselineBot = {
  language: 'python',
  file: 'main.py',
  source: `import json
import sys


def drop(board, column, mark):
    for row in range(len(board) - 1, -1, -1):
        if board[row][column] == 0:
            board[row][column] = mark
            return row
    return -1


def wins(board, row, column, need):
    mark = board[row][column]
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


def winning(board, column, mark, need):
    trial = [list(line) for line in board]
    row = drop(trial, column, mark)
    return row >= 0 and wins(trial, row, column, need)


def choose(obs):
    board, me, need = obs["board"], obs["mark"], obs["inarow"]
    other = 2 if me == 1 else 1
    legal = obs["legal_actions"]
    for column in legal:
        if winning(board, column, me, need):
            return column
    for column in legal:
        if winning(board, column, other, need):
            return column
    centre = (len(board[0]) - 1) / 2
    safe = []
    for column in legal:
        trial = [list(line) for line in board]
        drop(trial, column, me)
        if not any(winning(trial, c, other, need) for c in range(len(board[0])) if trial[0][c] == 0):
            safe.append(column)
    pool = safe or legal
    return min(pool, key=lambda c: (abs(c - centre), c))


for line in sys.stdin:
    message = json.loads(line)
    if message.get("done"):
        break
    print(json.dumps({"action": choose(message["observation"])}), flush=True)
`,
};

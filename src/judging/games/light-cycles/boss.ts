import type { BaselineBot } from '../engine';

/**
 * Light cycles' baseline ("boss") bot: takes the legal direction into the largest open area
 * (a flood fill from the cell it would enter), ties broken by going straight. Beatable by
 * anticipating the other heads.
 */
export const LIGHT_CYCLES_BOSS: BaselineBot = {
  language: 'python',
  file: 'main.py',
  source: `import json
import sys

DELTA = {"up": (0, -1), "right": (1, 0), "down": (0, 1), "left": (-1, 0)}


def room(grid, x, y, limit=200):
    size = len(grid)
    if not (0 <= x < size and 0 <= y < size) or grid[y][x] != 0:
        return 0
    seen = {(x, y)}
    todo = [(x, y)]
    while todo and len(seen) < limit:
        cx, cy = todo.pop()
        for dx, dy in DELTA.values():
            nx, ny = cx + dx, cy + dy
            if 0 <= nx < size and 0 <= ny < size and grid[ny][nx] == 0 and (nx, ny) not in seen:
                seen.add((nx, ny))
                todo.append((nx, ny))
    return len(seen)


def choose(obs):
    me = obs["players"][obs["seat"] - 1]
    best, best_score = obs["legal_actions"][0], -1
    for direction in obs["legal_actions"]:
        dx, dy = DELTA[direction]
        score = room(obs["grid"], me["x"] + dx, me["y"] + dy) * 2 + (1 if direction == me["direction"] else 0)
        if score > best_score:
            best, best_score = direction, score
    return best


for line in sys.stdin:
    message = json.loads(line)
    if message.get("done"):
        break
    print(json.dumps({"action": choose(message["observation"])}), flush=True)
`,
};

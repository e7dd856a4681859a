import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { commands } from '../../../src/cli/commands/games';
import { runCli } from '../../../src/cli/framework';
import { findGame } from '../../../src/judging/games/catalog';
import { resimulate } from '../../../src/judging/games/game-run';

const dir = mkdtempSync(path.join(os.tmpdir(), 'cli-play-'));

async function cli(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, commands, { out: (t) => out.push(t), err: (t) => err.push(t) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('cli play (plain processes, the server’s reducer and referee)', () => {
  it('plays the boss against a local Python file over two games with alternating seats, writing the replay', async () => {
    const mine = path.join(dir, 'first.py');
    writeFileSync(
      mine,
      'import json, sys\nfor line in sys.stdin:\n    m = json.loads(line)\n    if m.get("done"):\n        break\n    print(json.dumps({"action": m["observation"]["legal_actions"][0]}), flush=True)\n',
    );
    const replayFile = path.join(dir, 'replay.json');
    const run = await cli([
      'play',
      '--game',
      'connect-four',
      'boss',
      mine,
      '--games',
      '2',
      '--seed',
      '5',
      '--no-wall',
      '--replay',
      replayFile,
    ]);
    expect(run.code).toBe(0);
    expect(run.err).toMatch(/no wall here \(asked with --no-wall\)/);
    expect(run.out).toMatch(/^game 1 \(seed 5, \d+ turns\):$/m);
    expect(run.out).toMatch(/^game 2 \(seed 6, \d+ turns\):$/m);
    expect(run.out).toMatch(/^ {2}boss: 2$/m);
    const replay = JSON.parse(readFileSync(replayFile, 'utf8'));
    expect(replay).toMatchObject({ schema_version: 1, game: 'connect-four', match_id: null });
    expect(replay.games.map((game: { seats: string[] }) => game.seats)).toEqual([
      ['boss', mine],
      [mine, 'boss'],
    ]);
    const engine = findGame('connect-four')!;
    for (const game of replay.games) expect(resimulate(engine, game, 42)).toEqual(game);
  }, 60_000);

  it('a program that prints garbage loses, and the command says why', async () => {
    const bad = path.join(dir, 'bad.py');
    writeFileSync(bad, 'import sys\nfor line in sys.stdin:\n    print("garbage", flush=True)\n');
    const run = await cli(['play', '--game', 'light-cycles', bad, 'boss', '--seed', '1', '--no-wall']);
    expect(run.code).toBe(0);
    expect(run.out).toMatch(/bad\.py lost game 1: invalid action at turn 1: invalid answer: not JSON/);
  }, 60_000);

  it('a folder is a player of several files: every file is part of it, and it plays its games', async () => {
    // The entry only loops; the move comes from lib/pick.py (issue 40: a real agent has files).
    const project = path.join(dir, 'two-file-player');
    mkdirSync(path.join(project, 'lib'), { recursive: true });
    writeFileSync(
      path.join(project, 'main.py'),
      'import json, sys\nfrom lib.pick import pick\nfor line in sys.stdin:\n    m = json.loads(line)\n    if m.get("done"):\n        break\n    print(json.dumps({"action": pick(m["observation"])}), flush=True)\n',
    );
    writeFileSync(
      path.join(project, 'lib', 'pick.py'),
      'def pick(observation):\n    return observation["legal_actions"][0]\n',
    );
    const replayFile = path.join(dir, 'folder-replay.json');
    const run = await cli([
      'play',
      '--game',
      'connect-four',
      project,
      'boss',
      '--games',
      '2',
      '--seed',
      '3',
      '--no-wall',
      '--replay',
      replayFile,
    ]);
    expect({ code: run.code, err: run.err }).toEqual({
      code: 0,
      err: expect.not.stringMatching(/compile error|lost game/),
    });
    const replay = JSON.parse(readFileSync(replayFile, 'utf8'));
    expect(replay.games).toHaveLength(2);
    // Both games played to their end by both players: no fault (a missing lib would crash it at turn 1).
    for (const game of replay.games) {
      expect(game.statuses).toEqual(['done', 'done']);
      expect(game.seats).toContain(project);
    }
  }, 60_000);

  it('refuses an unknown game and a wrong number of players', async () => {
    expect((await cli(['play', '--game', 'chess', 'a.py', 'b.py'])).code).toBe(2);
    expect((await cli(['play', '--game', 'connect-four', 'boss'])).code).toBe(2);
  });
});

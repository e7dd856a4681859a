import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { commands } from '../../../src/cli/commands/match-replays';
import { runCli } from '../../../src/cli/framework';
import { findGame } from '../../../src/judging/games/catalog';
import { playMatch } from '../../../src/judging/games/match';
import { firstLegal } from '../../fakes/players';

const MATCH = '7d3c8f7e-2a51-4c9e-9a0e-2f1c8b0b5a11';
const AGENT = '0b9a7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';

async function cli(argv: string[], answer: (url: string, init?: RequestInit) => Response) {
  const out: string[] = [];
  const err: string[] = [];
  const calls: { url: string; auth: string | null }[] = [];
  const fetchStub = (async (url: string, init?: RequestInit) => {
    calls.push({ url, auth: new Headers(init?.headers).get('authorization') });
    return answer(url, init);
  }) as unknown as typeof fetch;
  const code = await runCli(argv, commands, {
    out: (t) => out.push(t),
    err: (t) => err.push(t),
    fetch: fetchStub,
    env: { CCS_BASE_URL: 'http://api.test' },
  });
  return { code, out: out.join('\n'), err: err.join('\n'), calls };
}

describe('cli matches replay / logs', () => {
  it('downloads a replay anonymously, prints it game by game with the moves, and saves it', async () => {
    const engine = findGame('connect-four')!;
    const { replay } = await playMatch({
      engine,
      matchId: MATCH,
      participants: ['a', 'b'],
      seeds: [3, 4],
      limits: { turnMs: 100, bankMs: 100, maxTurns: 42 },
      players: (order) => order.map(() => firstLegal()),
    });
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'cli-replay-')), 'replay.json');
    const run = await cli(['matches', 'replay', MATCH, '--out', file, '--moves'], () =>
      Response.json({ data: replay }),
    );
    expect(run.code).toBe(0);
    expect(run.calls).toEqual([{ url: `http://api.test/api/v1/matches/${MATCH}/replay`, auth: null }]);
    expect(run.out).toContain(`connect-four match ${MATCH}: 2 game(s)`);
    expect(run.out).toMatch(/^game 1 \(seed 3, 19 turns\)$/m);
    expect(run.out).toMatch(/^ {2}seat 1 a: reward 1, finished$/m);
    expect(run.out).toMatch(/^ {2}turn 1: seat 1: 0$/m);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(replay);
  });

  it('refuses a bad id (usage) and shows the API refusal', async () => {
    expect((await cli(['matches', 'replay', 'nope'], () => Response.json({}))).code).toBe(2);
    const missing = await cli(['matches', 'replay', MATCH], () =>
      Response.json({ error: { code: 'NOT_FOUND', message: 'replay not found' } }, { status: 404 }),
    );
    expect(missing.code).toBe(1);
    expect(missing.err).toContain('replay not found');
  });

  it('logs send the participant token and print each game', async () => {
    const run = await cli(['matches', 'logs', MATCH, AGENT, '--token', 'tok_123'], () =>
      Response.json({
        data: {
          match_id: MATCH,
          agent_id: AGENT,
          games: [
            { game: 1, seat: 1, stderr: 'hello\n', fault: null },
            { game: 2, seat: 2, stderr: '', fault: { kind: 'error', turn: 4, reason: 'crash' } },
          ],
        },
      }),
    );
    expect(run.code).toBe(0);
    expect(run.calls[0]).toEqual({
      url: `http://api.test/api/v1/matches/${MATCH}/logs/${AGENT}`,
      auth: 'Bearer tok_123',
    });
    expect(run.out).toContain('--- game 1 (seat 1)\nhello');
    expect(run.out).toContain('--- game 2 (seat 2): error at turn 4: crash\n(no stderr)');
  });
});

/**
 * Game matches' replays and logs from the CLI (DESIGN "Games"; list/get/watch are in matches.ts):
 *
 *   matches replay <matchId> [--out replay.json] [--json] [--moves]   a game match's replay (public once complete)
 *   matches logs <matchId> <agentId> [--json]                         your agent's stderr in each game (--token)
 *
 * The replay is the server's shape, the same as `play --replay` writes locally (`match_id` null there).
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { STATUS_WORDS } from '../../judging/games/match';
import type { Replay } from '../../judging/games/match';
import type { SeatStatus } from '../../judging/games/engine';
import { stringFlag, uuidPositional, type CliCommand, type CliContext } from '../framework';

const reader = (ctx: CliContext) => ({ auth: ctx.hasToken ? ctx.token() : null });

/** The replay in words: per game its seed, seats, turns, each seat's reward and status (and each move with `moves`). */
export function describeReplay(replay: Replay, moves = false): string {
  const lines = [`${replay.game} match ${replay.match_id ?? '(local)'}: ${replay.games.length} game(s)`];
  replay.games.forEach((game, index) => {
    lines.push(`game ${index + 1} (seed ${game.seed}, ${game.steps.length - 1} turns)`);
    game.seats.forEach((seat, s) => {
      const status = game.statuses[s] as SeatStatus;
      lines.push(`  seat ${s + 1} ${seat}: reward ${game.rewards[s]}, ${STATUS_WORDS[status] ?? status}`);
    });
    if (moves) {
      for (let turn = 1; turn < game.steps.length; turn++) {
        const acted = game.steps[turn]
          .map((entry, s) =>
            entry.action === null ? null : `seat ${s + 1}: ${JSON.stringify(entry.action)}`,
          )
          .filter((x) => x !== null);
        lines.push(`  turn ${turn}: ${acted.length > 0 ? acted.join(', ') : '(no action)'}`);
      }
    }
  });
  return lines.join('\n');
}

interface MatchLogs {
  match_id: string;
  agent_id: string;
  games: {
    game: number;
    seat: number;
    stderr: string;
    fault: { kind: string; turn: number; reason: string } | null;
  }[];
}

export const commands: CliCommand[] = [
  {
    name: 'matches replay',
    summary: "Download a game match's replay: print it, or save it with --out",
    usage: 'matches replay <matchId> [--out replay.json] [--json] [--moves]',
    options: { out: { type: 'string' }, json: { type: 'boolean' }, moves: { type: 'boolean' } },
    async run(args, ctx) {
      const id = uuidPositional(args, 'match id', 0);
      const { data } = await ctx.api<{ data: Replay }>(
        'GET',
        `/api/v1/matches/${id}/replay`,
        undefined,
        reader(ctx),
      );
      const out = stringFlag(args, 'out');
      if (out) {
        await writeFile(path.resolve(ctx.cwd(), out), `${JSON.stringify(data, null, 2)}\n`);
        ctx.out(`replay saved to ${out}`);
      }
      if (args.values.json) return ctx.out(JSON.stringify(data, null, 2));
      ctx.out(describeReplay(data, args.values.moves === true));
    },
  },
  {
    name: 'matches logs',
    summary: "Your agent's stderr in each game of a match (its owner and operators only)",
    usage: 'matches logs <matchId> <agentId> [--json]',
    options: { json: { type: 'boolean' } },
    async run(args, ctx) {
      const id = uuidPositional(args, 'match id', 0);
      const agentId = uuidPositional(args, 'agent id', 1);
      const { data } = await ctx.api<{ data: MatchLogs }>(
        'GET',
        `/api/v1/matches/${id}/logs/${agentId}`,
        undefined,
        { auth: ctx.token() },
      );
      if (args.values.json) return ctx.out(JSON.stringify(data, null, 2));
      for (const game of data.games) {
        ctx.out(
          `--- game ${game.game} (seat ${game.seat})${game.fault ? `: ${game.fault.kind} at turn ${game.fault.turn}: ${game.fault.reason}` : ''}`,
        );
        ctx.out(game.stderr.length > 0 ? game.stderr.trimEnd() : '(no stderr)');
      }
    },
  },
];

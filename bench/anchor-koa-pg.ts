/**
 * The read benchmarks' anchor: a bare Koa server with a pg pool, running exactly the service's own
 * statements for the challenge list (page + count, `listChallenges`) and the leaderboard page
 * (`leaderboardPage` with counts) and answering their rows as JSON, with nothing else around them
 * (no credentials, rate limiter, validation, visibility check, envelope or logging). Same paths
 * as the API, so the load generator drives both alike; what the API costs beyond it is what the
 * service adds per request.
 *
 *   ANCHOR_SERVE_PORT=7520 DATABASE_URL=... npx tsx bench/anchor-koa-pg.ts
 */
import Koa from 'koa';
import { createPool } from '../src/db/pool';
import { listChallenges, PUBLIC_STATUSES } from '../src/db/queries/challenges';
import { leaderboardPage } from '../src/db/queries/leaderboard';
import { decodeCursor } from '../src/domain/leaderboard';

const LEADERBOARD_PATH = /^\/api\/v1\/leaderboards\/([0-9a-f-]{36})$/;

function serve(port: number, databaseUrl: string): void {
  const db = createPool(databaseUrl, Number(process.env.DATABASE_POOL_MAX ?? 20));
  const app = new Koa();
  app.use(async (ctx) => {
    if (ctx.path === '/api/v1/challenges') {
      const { rows, total } = await listChallenges(
        db,
        { statuses: PUBLIC_STATUSES },
        { limit: 20, offset: 0 },
      );
      ctx.body = { data: rows, total };
      return;
    }
    const board = LEADERBOARD_PATH.exec(ctx.path);
    if (board) {
      const cursor = typeof ctx.query.cursor === 'string' ? decodeCursor(ctx.query.cursor) : null;
      const page = await leaderboardPage(db, board[1], cursor, 51, true);
      ctx.body = { data: page.rows, total: page.total, before: page.before };
    }
  });
  app.listen(port, '127.0.0.1', () => process.stdout.write(`ANCHOR_READY ${port}\n`));
}

if (require.main === module) {
  const port = Number(process.env.ANCHOR_SERVE_PORT);
  const databaseUrl = process.env.DATABASE_URL;
  if (!port || !databaseUrl) throw new Error('ANCHOR_SERVE_PORT and DATABASE_URL are required');
  serve(port, databaseUrl);
}

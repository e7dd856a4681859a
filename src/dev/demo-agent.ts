/**
 * The scripted demo agents `npm start` runs, so a new user sees a live, truthful competition within
 * a minute: two agents with different names are created through the public API (agent, connector
 * key, API token), entered into the seeded "Reverse a string" challenge, and each streams its
 * session and submits for real. The tests judge scores every submission; each judged result is
 * streamed back into the feed, so the watch page's feed and leaderboard tell the same story:
 * Basil's quick draft scores 60, Ada's first draft 40, then she corrects herself and wins with 100.
 * Both are also entered in the seeded head-to-head "Arena" challenge, where the matchmaker pairs
 * them every few minutes and they play each bout (src/connector-client/demo-arena.ts): a live
 * bout on /matches/{id} and a ladder on /weight-classes/arena-demo/ladder. In the seeded game
 * "Game: connect four" each submits a program (src/connector-client/demo-game.ts: Python and
 * JavaScript) that the matchmaker then plays against the other's: matches with replays to watch.
 */
import { mintSessionJwt } from '../auth/jwt';
import { getConfig } from '../config';
import { ConnectorClient } from '../connector-client/client';
import { bootstrapDemoAgent, DEMO_AGENT_NAMES, runDemo, type DemoPersona } from '../connector-client/demo';
import { playArenaBouts } from '../connector-client/demo-arena';
import { submitDemoGameProgram } from '../connector-client/demo-game';
import { DEMO_CHALLENGE_IDS, demoPersonaSubject } from './seed';

async function main(): Promise<void> {
  const config = getConfig();
  const baseUrl = process.env.API_BASE_URL ?? `http://127.0.0.1:${config.PORT}`;
  const stop = new AbortController();
  process.once('SIGINT', () => stop.abort());
  process.once('SIGTERM', () => stop.abort());
  const runPersona = async (persona: DemoPersona, startAfterMs: number) => {
    const jwt = await mintSessionJwt(config.AUTH_JWT_SECRET, {
      sub: demoPersonaSubject(persona),
      name: DEMO_AGENT_NAMES[persona],
    });
    const identity = await bootstrapDemoAgent({
      baseUrl,
      jwt,
      challengeId: DEMO_CHALLENGE_IDS.reverse,
      agentName: DEMO_AGENT_NAMES[persona],
    });
    const client = new ConnectorClient({
      baseUrl,
      agentKey: identity.agentKey,
      apiToken: identity.apiToken,
      userAgent: 'challenge-connector-demo/1.0',
    });
    const log = (level: string, message: string, fields?: Record<string, unknown>) =>
      console.log(JSON.stringify({ level, agent: DEMO_AGENT_NAMES[persona], message, ...fields }));
    // The arena: entered like any participant; the matchmaker does the rest while the agent is online.
    const entered = await fetch(`${baseUrl}/api/v1/challenges/${DEMO_CHALLENGE_IDS.arena}/entries`, {
      method: 'POST',
      headers: { authorization: `Bearer ${jwt}`, 'content-type': 'application/json' },
      body: JSON.stringify({ agent_id: identity.agentId }),
    });
    if (!entered.ok)
      log('warn', 'not entered in the arena', { status: entered.status, body: await entered.text() });
    else {
      await entered.body?.cancel();
      log('info', `arena: ${baseUrl}/challenges/${DEMO_CHALLENGE_IDS.arena} (a bout every few minutes)`);
    }
    const arena = entered.ok
      ? playArenaBouts({
          client,
          apiToken: identity.apiToken,
          challengeId: DEMO_CHALLENGE_IDS.arena,
          persona,
          signal: stop.signal,
          logger: log,
        })
      : Promise.resolve();
    // The game: one program each; validation and the matches are the server's from here on.
    await submitDemoGameProgram({
      client,
      challengeId: DEMO_CHALLENGE_IDS.game,
      persona,
      signal: stop.signal,
    }).then(
      ({ submissionId }) =>
        log('info', `game: ${baseUrl}/challenges/${DEMO_CHALLENGE_IDS.game} (program submitted)`, {
          submission_id: submissionId,
        }),
      (err: Error) => log('warn', 'no program submitted to the game', { error: err.message }),
    );
    await new Promise((r) => setTimeout(r, startAfterMs));
    const outcome = await runDemo({
      client,
      challengeId: identity.challengeId,
      persona,
      signal: stop.signal,
      logger: log,
    });
    log('info', 'demo finished', { ...outcome });
    await arena;
  };
  // Basil starts a little later, so his one submission lands between Ada's two.
  await Promise.all([runPersona('ada', 0), runPersona('basil', 8_000)]);
}

main().catch((err) => {
  console.error('demo agent failed:', err instanceof Error ? err.message : err);
  process.exit(1);
});

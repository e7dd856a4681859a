-- Up Migration
-- Games (issue 31, DESIGN "Fourth-round extensions" → "Games"): each game match's replay (public
-- once the match is complete) and each participant's stderr per game (its owner and operators
-- only). Written once, in the transaction that completes the match. Range 5400-5499 belongs to
-- games. Forward-only.

CREATE TABLE match_replays (
  match_id    uuid PRIMARY KEY REFERENCES matches(id),
  game        text NOT NULL,
  -- DESIGN's shape: {schema_version: 1, game, match_id, games: [{seed, seats, steps, rewards, statuses}]}
  replay      jsonb NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE match_logs (
  match_id    uuid NOT NULL REFERENCES matches(id),
  agent_id    uuid NOT NULL REFERENCES agents(id),
  -- One entry per game, in game order: {game, seat, stderr, fault}.
  games       jsonb NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (match_id, agent_id)
);

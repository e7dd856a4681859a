-- Up Migration
-- Connector live events and the spectator relay (area: connector and spectators, 4xxx).
--
-- Every event an agent streams is stored at once. `seq_num` numbers an agent's events within
-- one challenge (gap-free: assigned under the entry's row lock). The spectator-relay workflow
-- later releases due events (received_at + delay <= now) in batches: each release assigns
-- `feed_seq`, the challenge-wide position of the public feed, and `released_at`. Releases of
-- one challenge are serialised by the row lock on live_relay_state, so a reader that has seen
-- feed_seq N has seen every event with a smaller feed_seq (no commit-order gaps).

CREATE TABLE live_events (
  id            bigserial PRIMARY KEY,
  challenge_id  uuid NOT NULL REFERENCES challenges(id),
  agent_id      uuid NOT NULL REFERENCES agents(id),
  entry_id      uuid NOT NULL REFERENCES entries(id),
  seq_num       integer NOT NULL CHECK (seq_num > 0),
  type          text NOT NULL,
  occurred_at   timestamptz NOT NULL,            -- event.timestamp, as reported by the agent
  event         jsonb NOT NULL,                  -- the validated event, as sent
  sandbox       boolean NOT NULL DEFAULT false,  -- sandbox entries are never released to the public feed
  received_at   timestamptz NOT NULL DEFAULT clock_timestamp(),  -- server time: drives the delay
  released_at   timestamptz,
  feed_seq      bigint,
  UNIQUE (challenge_id, agent_id, seq_num)
);
-- The public feed, by position, optionally per agent.
CREATE UNIQUE INDEX live_events_feed_idx ON live_events (challenge_id, feed_seq) WHERE feed_seq IS NOT NULL;
CREATE INDEX live_events_feed_agent_idx ON live_events (challenge_id, agent_id, feed_seq) WHERE feed_seq IS NOT NULL;
-- Released rows younger than the delay (normally none): the readers' safety filter.
CREATE INDEX live_events_released_recent_idx ON live_events (challenge_id, received_at) WHERE feed_seq IS NOT NULL;
-- What the relay still has to release.
CREATE INDEX live_events_pending_idx ON live_events (challenge_id, received_at, id) WHERE feed_seq IS NULL AND sandbox = false;
-- The operators' undelayed view, by arrival.
CREATE INDEX live_events_arrival_idx ON live_events (challenge_id, id);
-- "Has this entry already reported its submission?" (a second `submitted` event is refused).
CREATE INDEX live_events_submitted_idx ON live_events (entry_id) WHERE type = 'submitted';

-- One row per challenge with a relay: the feed position and whether the relay is idle (waiting
-- for a signal). The stream route flips idle → busy and only then signals the workflow, so a
-- busy relay is not sent one signal per event.
CREATE TABLE live_relay_state (
  challenge_id   uuid PRIMARY KEY REFERENCES challenges(id),
  last_feed_seq  bigint NOT NULL DEFAULT 0,
  idle           boolean NOT NULL DEFAULT true,
  updated_at     timestamptz NOT NULL DEFAULT now()
);

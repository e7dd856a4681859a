-- Up Migration
-- The arena (issue 30, DESIGN "Matches between agents"): match challenges, matches and their
-- participants, ratings per (agent, weight class) with their update log, the matchmaker's rounds,
-- and entries that know matches. Range 5300-5399 belongs to the arena. Forward-only.

-- Match settings of head_to_head / game challenges (null for every solo format).
ALTER TABLE challenges ADD COLUMN match jsonb;

CREATE TABLE matchmaking_rounds (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  challenge_id  uuid NOT NULL REFERENCES challenges(id),
  round_no      integer NOT NULL,
  ran_at        timestamptz NOT NULL DEFAULT now(),
  summary       jsonb NOT NULL,
  -- A re-delivered round activity finds its round here and changes nothing.
  UNIQUE (challenge_id, round_no)
);
CREATE INDEX matchmaking_rounds_latest_idx ON matchmaking_rounds (challenge_id, ran_at DESC);

CREATE SEQUENCE match_completed_seq;

CREATE TABLE matches (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  challenge_id     uuid NOT NULL REFERENCES challenges(id),
  weight_class_id  text NOT NULL,
  kind             text NOT NULL CHECK (kind IN ('bout', 'game')),
  status           text NOT NULL DEFAULT 'scheduled' CHECK (status IN ('scheduled', 'running', 'complete', 'void')),
  rated            boolean NOT NULL,
  origin           text NOT NULL CHECK (origin IN ('matchmaker', 'exhibition')),
  round_id         uuid REFERENCES matchmaking_rounds(id),
  reason           text,
  created_by       uuid REFERENCES users(id),
  scheduled_at     timestamptz NOT NULL DEFAULT now(),
  started_at       timestamptz,
  ends_at          timestamptz,
  -- When the bout actually ended (ends_at, or earlier once everyone opened and closed a session):
  -- submissions made before it count.
  bout_ended_at    timestamptz,
  completed_at     timestamptz,
  result_id        uuid UNIQUE,
  -- Completion order within the whole service (and so within a weight class): ratings apply in it.
  completed_seq    bigint UNIQUE,
  created_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX matches_challenge_idx ON matches (challenge_id, scheduled_at DESC, id DESC);
CREATE INDEX matches_open_idx ON matches (challenge_id) WHERE status IN ('scheduled', 'running');
CREATE INDEX matches_class_seq_idx ON matches (weight_class_id, completed_seq) WHERE completed_seq IS NOT NULL;

CREATE TABLE match_participants (
  match_id       uuid NOT NULL REFERENCES matches(id),
  agent_id       uuid NOT NULL REFERENCES agents(id),
  seat           integer NOT NULL CHECK (seat >= 1),
  owner_user_id  uuid NOT NULL REFERENCES users(id),
  submission_id  uuid REFERENCES submissions(id),
  score          numeric(5,2),
  rank           integer,
  outcome        text CHECK (outcome IN ('win', 'loss', 'draw', 'forfeit')),
  rating_before  jsonb,
  rating_after   jsonb,
  PRIMARY KEY (match_id, agent_id),
  UNIQUE (match_id, seat)
);
CREATE INDEX match_participants_agent_idx ON match_participants (agent_id, match_id);

CREATE TABLE ratings (
  weight_class_id  text NOT NULL,
  agent_id         uuid NOT NULL REFERENCES agents(id),
  mu               double precision NOT NULL,
  sigma            double precision NOT NULL,
  ordinal          double precision NOT NULL,
  matches          integer NOT NULL DEFAULT 0,
  wins             integer NOT NULL DEFAULT 0,
  draws            integer NOT NULL DEFAULT 0,
  losses           integer NOT NULL DEFAULT 0,
  last_match_at    timestamptz,
  updated_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (weight_class_id, agent_id)
);
CREATE INDEX ratings_ladder_idx ON ratings (weight_class_id, ordinal DESC, agent_id);

-- One row per rated match applied to its class's ratings: the idempotency key of the apply step.
CREATE TABLE rating_updates (
  match_id         uuid PRIMARY KEY REFERENCES matches(id),
  weight_class_id  text NOT NULL,
  completed_seq    bigint NOT NULL,
  applied_at       timestamptz NOT NULL DEFAULT now()
);

-- Entries: a ladder entry (match_id null; status `waiting` on match challenges) per (challenge,
-- agent), and one bout entry per participant per match (match_id set). Solo challenges keep exactly
-- one entry per (challenge, agent), as before.
ALTER TABLE entries ADD COLUMN match_id uuid REFERENCES matches(id);
ALTER TABLE entries DROP CONSTRAINT entries_challenge_id_agent_id_key;
CREATE UNIQUE INDEX entries_ladder_uidx ON entries (challenge_id, agent_id) WHERE match_id IS NULL;
CREATE UNIQUE INDEX entries_bout_uidx ON entries (match_id, agent_id) WHERE match_id IS NOT NULL;
ALTER TABLE entries DROP CONSTRAINT entries_status_check;
ALTER TABLE entries ADD CONSTRAINT entries_status_check
  CHECK (status IN ('waiting', 'assigned', 'active', 'submitted', 'judged', 'timed_out', 'withdrawn'));

-- entry_count counts agents entered (ladder entries), never bout entries.
CREATE OR REPLACE FUNCTION entries_count_live() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') AND NOT OLD.sandbox AND OLD.match_id IS NULL THEN
    UPDATE challenge_entry_counts SET live_entries = live_entries - 1 WHERE challenge_id = OLD.challenge_id;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') AND NOT NEW.sandbox AND NEW.match_id IS NULL THEN
    INSERT INTO challenge_entry_counts (challenge_id, live_entries) VALUES (NEW.challenge_id, 1)
    ON CONFLICT (challenge_id) DO UPDATE SET live_entries = challenge_entry_counts.live_entries + 1;
  END IF;
  RETURN NULL;
END $$;

-- Same as 4002, except which entry an event belongs to: the agent's bout entry of a running match
-- when there is one, else its ladder (or only) entry. Solo challenges have only the latter.
CREATE OR REPLACE FUNCTION live_event_ingest(
  p_challenge uuid,
  p_agent uuid,
  p_type text,
  p_occurred timestamptz,
  p_event jsonb,
  p_plans jsonb,
  p_idempotency_key text DEFAULT NULL
) RETURNS TABLE (r_ok boolean, r_status integer, r_message text, r_seq integer, r_sandbox boolean, r_entry_status text, r_replayed boolean)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_entry uuid;
  v_status text;
  v_sandbox boolean;
  v_challenge_status text;
  v_key text;
  v_plan jsonb;
  v_next text;
  v_seq integer;
  v_prev_challenge uuid;
  v_prev_event jsonb;
BEGIN
  SELECT e.id, e.status, e.sandbox, c.status
    INTO v_entry, v_status, v_sandbox, v_challenge_status
    FROM entries e JOIN challenges c ON c.id = e.challenge_id
    LEFT JOIN matches m ON m.id = e.match_id
   WHERE e.challenge_id = p_challenge AND e.agent_id = p_agent
     AND (e.match_id IS NULL OR m.status = 'running')
   ORDER BY (e.match_id IS NOT NULL) DESC, e.assigned_at DESC
   LIMIT 1
     FOR UPDATE OF e;
  IF NOT FOUND THEN
    RETURN QUERY SELECT false, 403, 'agent is not entered in this challenge'::text, NULL::integer, NULL::boolean, NULL::text, false;
    RETURN;
  END IF;

  IF p_idempotency_key IS NOT NULL THEN
    SELECT le.seq_num, le.challenge_id, le.event
      INTO v_seq, v_prev_challenge, v_prev_event
      FROM live_events le
     WHERE le.agent_id = p_agent AND le.idempotency_key = p_idempotency_key;
    IF FOUND THEN
      IF v_prev_challenge = p_challenge AND v_prev_event = p_event THEN
        RETURN QUERY SELECT true, 200, NULL::text, v_seq, v_sandbox, v_status, true;
      ELSE
        RETURN QUERY SELECT false, 409, 'this Idempotency-Key was already used for a different event'::text, NULL::integer, v_sandbox, v_status, false;
      END IF;
      RETURN;
    END IF;
  END IF;

  IF v_challenge_status <> 'active' THEN
    RETURN QUERY SELECT false, 403, 'challenge is not active'::text, NULL::integer, v_sandbox, v_status, false;
    RETURN;
  END IF;

  v_key := v_status;
  IF p_type = 'submitted' AND v_status IN ('submitted', 'judged')
     AND EXISTS (SELECT 1 FROM live_events le WHERE le.entry_id = v_entry AND le.type = 'submitted') THEN
    v_key := v_status || ':reported';
  END IF;
  v_plan := p_plans -> v_key;
  IF v_plan IS NULL THEN
    RAISE EXCEPTION 'live_event_ingest: no plan for entry status %', v_key;
  END IF;
  IF NOT (v_plan ->> 'ok')::boolean THEN
    RETURN QUERY SELECT false, (v_plan ->> 'status')::integer, v_plan ->> 'message', NULL::integer, v_sandbox, v_status, false;
    RETURN;
  END IF;

  SELECT COALESCE(MAX(le.seq_num), 0) + 1 INTO v_seq
    FROM live_events le WHERE le.challenge_id = p_challenge AND le.agent_id = p_agent;
  INSERT INTO live_events (challenge_id, agent_id, entry_id, seq_num, type, occurred_at, event, sandbox, idempotency_key)
  VALUES (p_challenge, p_agent, v_entry, v_seq, p_type, p_occurred, p_event, v_sandbox, p_idempotency_key);

  v_next := v_plan ->> 'next';
  IF v_next IS NOT NULL AND v_next <> v_status THEN
    UPDATE entries SET status = v_next, updated_at = now() WHERE id = v_entry;
  END IF;
  RETURN QUERY SELECT true, 200, NULL::text, v_seq, v_sandbox, COALESCE(v_next, v_status), false;
END;
$$;

-- The audit actions and targets of the fourth round (DESIGN, "Operators": the whole list, the same
-- as the other fourth-round migrations write, so whichever runs last every action is accepted).
ALTER TABLE audit_records DROP CONSTRAINT IF EXISTS audit_records_action_check;
ALTER TABLE audit_records ADD CONSTRAINT audit_records_action_check CHECK (action IN (
  'challenge.create', 'challenge.update', 'challenge.publish', 'challenge.quarantine',
  'challenge.retire', 'submission.rejudge', 'delivery.replay', 'delivery.replay_bulk',
  'challenge.rejudge', 'match.create', 'match.void', 'agent.delete', 'clarification.answer',
  'challenge.announce'));
ALTER TABLE audit_records DROP CONSTRAINT IF EXISTS audit_records_target_type_check;
ALTER TABLE audit_records ADD CONSTRAINT audit_records_target_type_check CHECK (target_type IN (
  'challenge', 'submission', 'delivery', 'webhook_subscription', 'agent', 'match', 'clarification'));

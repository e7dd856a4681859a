-- Up Migration
-- Optional Idempotency-Key on POST /api/v1/events/stream (docs/decisions/connector.md).
--
-- The request pipeline's idempotency record (idempotency_keys, 24 h) answers most repeats before
-- the handler runs. The key is ALSO stored on the event itself, as submissions do, so that a
-- repeat that reaches the handler anyway (the API died after the event committed but before the
-- idempotency record was completed, and a retry took the stale claim over; or the record expired)
-- still finds the original event instead of storing a second one.
--
-- Keys are scoped per agent (as the pipeline scopes them: the key's agent + the route).

ALTER TABLE live_events ADD COLUMN idempotency_key text;
CREATE UNIQUE INDEX live_events_agent_idempotency_key_idx
  ON live_events (agent_id, idempotency_key) WHERE idempotency_key IS NOT NULL;

-- Same function as 4001 plus `p_idempotency_key` (NULL: no key, the old behaviour) and
-- `r_replayed`. With a key, once the entry's row lock is held, an event of this agent already
-- stored under the key is answered instead of inserting: the same challenge and the same event →
-- its seq_num again (r_replayed = true); anything else → 409 (the key was used for another event).
-- The lookup comes before the challenge and transition checks, so a repeat of an accepted event
-- answers as the original did even after the challenge ended or the entry moved on.
-- Two posts with the same key for the SAME challenge are serialised by the entry lock (the second
-- sees the first's row: each statement takes a fresh snapshot); for two DIFFERENT challenges the
-- unique index refuses the second insert (unique_violation), which the caller maps to 409.
DROP FUNCTION live_event_ingest(uuid, uuid, text, timestamptz, jsonb, jsonb);

CREATE FUNCTION live_event_ingest(
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
   WHERE e.challenge_id = p_challenge AND e.agent_id = p_agent
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

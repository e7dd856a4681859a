-- Up Migration
-- One round trip per streamed event: lock the agent's entry, check the challenge, apply the
-- entry transition and store the event with the next seq_num, in one implicit transaction.
--
-- The transition RULES stay in TypeScript (src/domain/connector/entry-transitions.ts): the caller
-- passes `p_plans`, the rule's outcome for this event type under every entry status, keyed by
-- status ('submitted:reported' / 'judged:reported' when the entry already streamed a `submitted`
-- event): {"ok": true, "next": "active" | null} or {"ok": false, "status": 400 | 403, "message": "..."}.
--
-- Correctness under concurrent posts: SELECT ... FOR UPDATE queues the agent's posts on its
-- entry row; in a VOLATILE function each statement takes a fresh snapshot (READ COMMITTED), so
-- the MAX(seq_num) after the lock sees every earlier committed event: gap-free numbering.
CREATE FUNCTION live_event_ingest(
  p_challenge uuid,
  p_agent uuid,
  p_type text,
  p_occurred timestamptz,
  p_event jsonb,
  p_plans jsonb
) RETURNS TABLE (r_ok boolean, r_status integer, r_message text, r_seq integer, r_sandbox boolean, r_entry_status text)
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
BEGIN
  SELECT e.id, e.status, e.sandbox, c.status
    INTO v_entry, v_status, v_sandbox, v_challenge_status
    FROM entries e JOIN challenges c ON c.id = e.challenge_id
   WHERE e.challenge_id = p_challenge AND e.agent_id = p_agent
     FOR UPDATE OF e;
  IF NOT FOUND THEN
    RETURN QUERY SELECT false, 403, 'agent is not entered in this challenge'::text, NULL::integer, NULL::boolean, NULL::text;
    RETURN;
  END IF;
  IF v_challenge_status <> 'active' THEN
    RETURN QUERY SELECT false, 403, 'challenge is not active'::text, NULL::integer, v_sandbox, v_status;
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
    RETURN QUERY SELECT false, (v_plan ->> 'status')::integer, v_plan ->> 'message', NULL::integer, v_sandbox, v_status;
    RETURN;
  END IF;

  SELECT COALESCE(MAX(le.seq_num), 0) + 1 INTO v_seq
    FROM live_events le WHERE le.challenge_id = p_challenge AND le.agent_id = p_agent;
  INSERT INTO live_events (challenge_id, agent_id, entry_id, seq_num, type, occurred_at, event, sandbox)
  VALUES (p_challenge, p_agent, v_entry, v_seq, p_type, p_occurred, p_event, v_sandbox);

  v_next := v_plan ->> 'next';
  IF v_next IS NOT NULL AND v_next <> v_status THEN
    UPDATE entries SET status = v_next, updated_at = now() WHERE id = v_entry;
  END IF;
  RETURN QUERY SELECT true, 200, NULL::text, v_seq, v_sandbox, COALESCE(v_next, v_status);
END;
$$;

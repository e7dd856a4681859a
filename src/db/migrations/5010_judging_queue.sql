-- Up Migration
-- One service-owned queue for all judging work (docs/decisions/judging.md, "One queue for all
-- judging work"; DESIGN, "Verdicts come from the host"). A piece of work (a submission run, a
-- rejudge run, an operator's dry run; later a game, holding one slot per player) waits here as a
-- row and is granted the sandbox slots it runs in; caps count slots; the order is fair per owner
-- (src/domain/judging-queue/order.ts). Admission passes are serialised by a transaction-level
-- advisory lock; a row lives only while someone keeps refreshing it (the waiting activity while
-- it waits, the judging while it runs), so a dead worker's work expires instead of blocking.
--
-- judging_leases (2501) stays for the workers of the previous release during a rolling deploy;
-- nothing of this release reads or writes it. Its live leases are carried over below so that
-- judgings running across the deploy still count.
CREATE TABLE judging_queue (
  seq            bigserial PRIMARY KEY,
  -- 'submission:<id>:<run>', 'dry-run:<workflow id>', later 'game:…': one row per piece of work.
  work_key       text NOT NULL UNIQUE,
  kind           text NOT NULL CHECK (kind IN ('submission', 'rejudge', 'dry_run', 'game')),
  -- 0 normal, 1 low (rejudges); smaller is served first.
  priority       smallint NOT NULL DEFAULT 0 CHECK (priority >= 0),
  -- The user the work counts against (NULL: none, as rejudges and dry runs).
  owner_user_id  uuid REFERENCES users(id) ON DELETE CASCADE,
  agent_id       uuid REFERENCES agents(id) ON DELETE CASCADE,
  submission_id  uuid REFERENCES submissions(id) ON DELETE CASCADE,
  run            integer,
  slots          integer NOT NULL CHECK (slots BETWEEN 1 AND 64),
  state          text NOT NULL DEFAULT 'waiting' CHECK (state IN ('waiting', 'running')),
  enqueued_at    timestamptz NOT NULL DEFAULT now(),
  granted_at     timestamptz,
  expires_at     timestamptz NOT NULL,
  CHECK ((state = 'running') = (granted_at IS NOT NULL))
);
CREATE INDEX judging_queue_state_idx ON judging_queue (state, seq);
CREATE INDEX judging_queue_submission_idx ON judging_queue (submission_id, run) WHERE submission_id IS NOT NULL;
CREATE INDEX judging_queue_expires_idx ON judging_queue (expires_at);

-- The judging slots each live worker has (its sandbox's slots), refreshed while it runs: the
-- queue's capacity is their sum unless JUDGE_QUEUE_SLOTS fixes it.
CREATE TABLE judging_workers (
  worker_id     text PRIMARY KEY,
  slots         integer NOT NULL CHECK (slots >= 1),
  last_seen_at  timestamptz NOT NULL DEFAULT now()
);

INSERT INTO judging_queue (work_key, kind, priority, owner_user_id, agent_id, submission_id, run, slots,
                           state, enqueued_at, granted_at, expires_at)
SELECT 'submission:' || submission_id || ':' || run,
       CASE WHEN run > 0 THEN 'rejudge' ELSE 'submission' END,
       CASE WHEN run > 0 THEN 1 ELSE 0 END,
       CASE WHEN run > 0 THEN NULL ELSE user_id END,
       CASE WHEN run > 0 THEN NULL ELSE agent_id END,
       submission_id, run, 1, 'running', acquired_at, acquired_at, expires_at
  FROM judging_leases
 WHERE expires_at > now();

-- Up Migration
-- A judging queue entry may count against several owners (issue 37; DESIGN "Whatever a program
-- writes is data", Judging queue; docs/decisions/judging-queue.md): a matchmaker's game match
-- holds one slot per seat, each counted against that seat's owner (and agent) in the queue's
-- order and caps. An entry without rows here counts against judging_queue.owner_user_id /
-- agent_id as before (or no one). Rows live and die with their entry; a pass of the previous
-- release ignores them (it sees such a match as counted against no owner, as it did).
CREATE TABLE judging_queue_owners (
  seq            bigint NOT NULL REFERENCES judging_queue(seq) ON DELETE CASCADE,
  -- The seat's ordinal within the entry (a retried enqueue inserts nothing twice).
  share          integer NOT NULL CHECK (share >= 1),
  owner_user_id  uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  agent_id       uuid REFERENCES agents(id) ON DELETE CASCADE,
  slots          integer NOT NULL CHECK (slots BETWEEN 1 AND 64),
  PRIMARY KEY (seq, share)
);

-- Up Migration
-- A form kept for a signed-out poster belongs to the person it was rendered for, not to the
-- browser (DESIGN "Fifth-round extensions", issue 38; docs/decisions/web.md): the user its signed
-- `_csrf` named. /unsent shows it only to that user; sign-out and another person's sign-in on the
-- browser drop it. Rows kept before this (ten minutes' worth, bound to nobody) are dropped.
DELETE FROM web_form_stashes;
ALTER TABLE web_form_stashes
  ADD COLUMN user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE;
CREATE INDEX web_form_stashes_user_idx ON web_form_stashes (user_id);

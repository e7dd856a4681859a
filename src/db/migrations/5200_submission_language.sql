-- Up Migration
-- The submission body's `language` (id or alias; DESIGN "Submitting code the way people do"):
-- the language of its files that name none and of `content` when there are no files. Null when
-- the body named none (detection from extensions and fences, as before).
ALTER TABLE submissions ADD COLUMN language text;

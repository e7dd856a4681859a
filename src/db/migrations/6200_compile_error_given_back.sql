-- Up Migration
-- Issue 40 (DESIGN "Multi-file programs and the competitor's second pass"): a compile error the
-- compiler reported within its own limits counts against no submission limit. Charged while
-- judging (the default), given back when the run is so judged; a later judgement sets it again.
ALTER TABLE submissions ADD COLUMN charged boolean NOT NULL DEFAULT true;

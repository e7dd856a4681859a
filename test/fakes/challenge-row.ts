/** A whole challenges row for the in-memory stores: a draft solo rubric challenge, its window ahead. */
import { randomUUID } from 'node:crypto';
import type { ChallengeRow } from '../../src/db/queries/challenges';

const DAY = 86_400_000;

export function challengeRow(overrides: Partial<ChallengeRow> = {}): ChallengeRow {
  const now = Date.now();
  return {
    id: randomUUID(),
    title: 'Sorting',
    description: 'Sort numbers.',
    category: 'algorithms',
    format: 'solo',
    weight_class_id: 'open',
    status: 'draft',
    time_limit_minutes: null,
    entry_fee_cents: null,
    prize_pool: null,
    starts_at: new Date(now + DAY),
    ends_at: new Date(now + 8 * DAY),
    is_featured: false,
    is_daily: false,
    judge: { kind: 'rubric', criteria: [{ name: 'works', weight: 1, pattern: 'x' }] },
    max_submissions_per_session: 10,
    max_submissions_per_day: 50,
    final_submissions: 2,
    freeze_minutes: 0,
    match: null,
    quarantine_reason: null,
    created_by: null,
    created_at: new Date(now),
    updated_at: new Date(now),
    started_event_at: null,
    ended_event_at: null,
    published_at: null,
    quarantined_at: null,
    retired_at: null,
    version: 1,
    entry_count: 0,
    ...overrides,
  };
}

/**
 * What must hold after the fault run, checked against the database, the API and the webhook
 * receiver. Every check returns problems (strings) instead of throwing, so the summary shows all.
 */
import type { Client } from 'pg';
import type { ApiClient } from '../../bench/lib/http';
import type { Receiver } from '../../bench/lib/receiver';
import type { SubmissionAttemptLog } from './client';

export interface SubmissionRowLite {
  id: string;
  agent_id: string;
  status: string;
  idempotency_key: string | null;
  judge_run: number;
}

export async function loadSubmissions(db: Client, challengeId: string): Promise<SubmissionRowLite[]> {
  const res = await db.query<SubmissionRowLite>(
    'SELECT id, agent_id, status, idempotency_key, judge_run FROM submissions WHERE challenge_id = $1',
    [challengeId],
  );
  return res.rows;
}

/** Every answered-2xx submission exists, under its key, judged; nothing duplicated or stuck. */
export async function checkSubmissions(
  db: Client,
  challengeId: string,
  logs: SubmissionAttemptLog[],
): Promise<{ problems: string[]; counts: Record<string, number> }> {
  const problems: string[] = [];
  const rows = await loadSubmissions(db, challengeId);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const byKey = new Map<string, SubmissionRowLite[]>();
  for (const r of rows)
    if (r.idempotency_key) byKey.set(r.idempotency_key, [...(byKey.get(r.idempotency_key) ?? []), r]);

  const answered = logs.filter((l) => l.outcome === 'answered');
  for (const log of answered) {
    const row = log.submissionId ? byId.get(log.submissionId) : undefined;
    if (!row) {
      problems.push(
        `LOST: submission #${log.index} answered ${log.status} with id ${log.submissionId} is not in the database`,
      );
      continue;
    }
    if (row.idempotency_key !== log.idempotencyKey)
      problems.push(`submission ${row.id} carries another Idempotency-Key than its request`);
    if (row.status !== 'complete')
      problems.push(`submission ${row.id} (#${log.index}) is ${row.status}, not complete`);
  }
  for (const [key, list] of byKey)
    if (list.length > 1)
      problems.push(`DUPLICATE: ${list.length} submissions for Idempotency-Key ${key.slice(0, 12)}…`);
  const ourKeys = new Set(logs.map((l) => l.idempotencyKey));
  for (const r of rows) {
    if (!r.idempotency_key || !ourKeys.has(r.idempotency_key))
      problems.push(`submission ${r.id} was not sent by this run`);
    if (r.status !== 'complete' && r.status !== 'failed')
      problems.push(`STUCK: submission ${r.id} is still ${r.status}`);
    if (r.judge_run !== 0) problems.push(`submission ${r.id} was rejudged (run ${r.judge_run})`);
  }
  // Accepted but never answered 2xx (the client gave up): must still be judged (checked above).
  const unanswered = logs.filter((l) => l.outcome !== 'answered');
  for (const l of unanswered)
    problems.push(`submission #${l.index} never got a 2xx (${l.outcome}: ${l.lastError ?? ''})`);

  const results = await db.query<{ submission_id: string; current: number; total: number }>(
    `SELECT r.submission_id, count(*) FILTER (WHERE r.superseded_at IS NULL)::int AS current, count(*)::int AS total
       FROM results r WHERE r.challenge_id = $1 GROUP BY r.submission_id`,
    [challengeId],
  );
  const resultBySubmission = new Map(results.rows.map((r) => [r.submission_id, r]));
  for (const r of rows) {
    const res = resultBySubmission.get(r.id);
    if (r.status === 'complete' && (!res || res.current !== 1))
      problems.push(`submission ${r.id} has ${res?.current ?? 0} current results (want exactly 1)`);
    if (res && res.total !== 1) problems.push(`JUDGED TWICE: submission ${r.id} has ${res.total} results`);
  }
  const finalized = await db.query<{ submission_id: string; n: number }>(
    `SELECT payload->>'submission_id' AS submission_id, count(*)::int AS n FROM outbox_events
      WHERE event_type = 'result.finalized' AND challenge_id = $1 GROUP BY 1`,
    [challengeId],
  );
  for (const f of finalized.rows)
    if (f.n !== 1) problems.push(`result.finalized emitted ${f.n} times for ${f.submission_id}`);
  const counts = {
    inDatabase: rows.length,
    complete: rows.filter((r) => r.status === 'complete').length,
    failed: rows.filter((r) => r.status === 'failed').length,
    results: results.rows.reduce((a, r) => a + r.total, 0),
    resultFinalizedEvents: finalized.rows.reduce((a, r) => a + r.n, 0),
  };
  return { problems, counts };
}

export interface SubscriptionExpectation {
  id: string;
  path: string;
  /** Agents whose owner this subscription belongs to. */
  agentIds: string[];
}

/**
 * One result.finalized delivery per subscription per judged submission. A delivery id may arrive
 * more than once (at-least-once), but only as an identical re-send; two ids for one submission on
 * one subscription is a duplicate delivery.
 */
export function checkDeliveries(
  receiver: Receiver,
  subscriptions: SubscriptionExpectation[],
  completeByAgent: Map<string, Set<string>>,
): { problems: string[]; counts: Record<string, number> } {
  const problems: string[] = [];
  let unique = 0;
  let resends = 0;
  let badSignatures = 0;
  for (const sub of subscriptions) {
    const received = receiver.deliveries.filter(
      (d) => d.path === sub.path && d.eventType === 'result.finalized',
    );
    const idsBySubmission = new Map<string, Set<string>>();
    const bodyById = new Map<string, string>();
    for (const d of received) {
      if (d.signatureValid === false) badSignatures += 1;
      const submissionId = d.body?.submission_id ?? d.body?.data?.submission_id;
      if (!submissionId) {
        problems.push(`delivery ${d.deliveryId} on ${sub.path} has no submission_id`);
        continue;
      }
      const previous = bodyById.get(d.deliveryId);
      if (previous !== undefined) {
        resends += 1;
        if (previous !== d.rawBody)
          problems.push(`delivery ${d.deliveryId} was re-sent with a different body`);
      } else {
        bodyById.set(d.deliveryId, d.rawBody);
      }
      idsBySubmission.set(submissionId, (idsBySubmission.get(submissionId) ?? new Set()).add(d.deliveryId));
    }
    const expected = new Set(sub.agentIds.flatMap((a) => [...(completeByAgent.get(a) ?? [])]));
    for (const s of expected) {
      const ids = idsBySubmission.get(s);
      if (!ids)
        problems.push(`MISSING delivery: result.finalized for ${s} never reached subscription ${sub.path}`);
      else if (ids.size > 1)
        problems.push(`DUPLICATE delivery: ${ids.size} delivery ids for ${s} on ${sub.path}`);
    }
    for (const s of idsBySubmission.keys())
      if (!expected.has(s))
        problems.push(
          `subscription ${sub.path} got result.finalized for a submission of another owner: ${s}`,
        );
    unique += [...idsBySubmission.values()].reduce((a, ids) => a + ids.size, 0);
  }
  if (badSignatures) problems.push(`${badSignatures} deliveries with an invalid X-Svc-Signature`);
  return { problems, counts: { uniqueDeliveries: unique, identicalResends: resends, badSignatures } };
}

/** Expected unique result.finalized deliveries (for waiting). */
export function expectedDeliveryCount(
  subscriptions: SubscriptionExpectation[],
  completeByAgent: Map<string, Set<string>>,
): number {
  return subscriptions.reduce(
    (a, s) => a + s.agentIds.reduce((b, id) => b + (completeByAgent.get(id)?.size ?? 0), 0),
    0,
  );
}

export function uniqueDeliveryCount(receiver: Receiver, subscriptions: SubscriptionExpectation[]): number {
  const paths = new Set(subscriptions.map((s) => s.path));
  return new Set(
    receiver.deliveries
      .filter((d) => paths.has(d.path) && d.eventType === 'result.finalized')
      .map((d) => `${d.path} ${d.deliveryId}`),
  ).size;
}

/** The public leaderboard equals a recomputation from the results table (rank, agent, best score/submission, count). */
export async function checkLeaderboard(
  db: Client,
  api: ApiClient,
  challengeId: string,
): Promise<{ problems: string[]; rows: number }> {
  const problems: string[] = [];
  const expected = await db.query<{
    agent_id: string;
    best_score: string;
    best_submission_id: string;
    submission_count: number;
  }>(
    `WITH best AS (
       SELECT DISTINCT ON (agent_id) agent_id, final_score, submission_id, submitted_at
         FROM results
        WHERE challenge_id = $1 AND superseded_at IS NULL AND result_state = 'scored' AND sandbox = false
        ORDER BY agent_id, final_score DESC, submitted_at, id
     ), counts AS (
       SELECT agent_id, count(*)::int AS n FROM submissions WHERE challenge_id = $1 AND sandbox = false GROUP BY agent_id
     )
     SELECT b.agent_id, b.final_score::float8::text AS best_score, b.submission_id AS best_submission_id, c.n AS submission_count
       FROM best b JOIN counts c USING (agent_id)
      ORDER BY b.final_score DESC, date_trunc('milliseconds', b.submitted_at), b.agent_id`,
    [challengeId],
  );
  const res = await api.request('GET', `/api/v1/leaderboards/${challengeId}?limit=100`);
  if (res.status !== 200) return { problems: [`leaderboard answered ${res.status}`], rows: 0 };
  const actual: any[] = res.body.data;
  if (actual.length !== expected.rows.length)
    problems.push(`leaderboard has ${actual.length} rows, recomputation ${expected.rows.length}`);
  expected.rows.forEach((e, i) => {
    const a = actual[i];
    const want = {
      rank: i + 1,
      agent_id: e.agent_id,
      best_score: Number(e.best_score),
      best_submission_id: e.best_submission_id,
      submission_count: e.submission_count,
    };
    const got = a && {
      rank: a.rank,
      agent_id: a.agent_id,
      best_score: a.best_score,
      best_submission_id: a.best_submission_id,
      submission_count: a.submission_count,
    };
    if (JSON.stringify(want) !== JSON.stringify(got))
      problems.push(
        `leaderboard row ${i + 1}: got ${JSON.stringify(got)}, recomputed ${JSON.stringify(want)}`,
      );
  });
  return { problems, rows: actual.length };
}

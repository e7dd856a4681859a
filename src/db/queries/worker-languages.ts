import type { Queryable } from '../pool';

export interface OfferedLanguageRow {
  language: string;
  /** The newest version among the live workers that offer it. */
  version: string;
}

/** Records (or refreshes) what a worker's probes passed; languages it no longer offers are dropped. */
export async function recordWorkerLanguages(
  db: Queryable,
  workerId: string,
  languages: readonly { language: string; version: string }[],
): Promise<void> {
  await db.query(
    `WITH offered AS (
       SELECT * FROM unnest($2::text[], $3::text[]) AS o(language, version)
     ), dropped AS (
       DELETE FROM worker_languages w
        WHERE w.worker_id = $1 AND w.language <> ALL($2::text[])
     )
     INSERT INTO worker_languages (worker_id, language, version, last_seen_at)
     SELECT $1, language, version, now() FROM offered
     ON CONFLICT (worker_id, language) DO UPDATE SET version = EXCLUDED.version, last_seen_at = now()`,
    [workerId, languages.map((l) => l.language), languages.map((l) => l.version)],
  );
}

/** A worker that stops says so (the rows would otherwise only age out). */
export async function forgetWorkerLanguages(db: Queryable, workerId: string): Promise<void> {
  await db.query('DELETE FROM worker_languages WHERE worker_id = $1', [workerId]);
}

/** Languages at least one worker seen within `liveSeconds` offers. */
export async function listOfferedLanguages(
  db: Queryable,
  liveSeconds: number,
): Promise<OfferedLanguageRow[]> {
  const result = await db.query<OfferedLanguageRow>({
    name: 'worker_languages_offered',
    text: `SELECT language, max(version) AS version FROM worker_languages
            WHERE last_seen_at > now() - make_interval(secs => $1)
            GROUP BY language`,
    values: [liveSeconds],
  });
  return result.rows;
}

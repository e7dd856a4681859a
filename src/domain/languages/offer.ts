/**
 * The program judge's languages as the service offers them: each worker records what its
 * start-up probes passed (src/runtime/language-offer.ts) and refreshes it while it lives;
 * GET /api/v1/languages lists what at least one live worker offers.
 */
import type { Queryable } from '../../db/pool';
import { listOfferedLanguages } from '../../db/queries/worker-languages';
import { LANGUAGES, LANGUAGE_IDS, type LanguageId } from '../../judging/program/languages';

export const LANGUAGE_OFFER_TIMING = {
  /** A worker refreshes its row this often... */
  refreshMs: 30_000,
  /** ...and counts as live this long after its last refresh. */
  liveSeconds: 90,
} as const;

export interface OfferedLanguage {
  id: LanguageId;
  name: string;
  version: string;
  extensions: string[];
  compiled: boolean;
}

export async function offeredLanguages(db: Queryable): Promise<OfferedLanguage[]> {
  const rows = await listOfferedLanguages(db, LANGUAGE_OFFER_TIMING.liveSeconds);
  const versions = new Map(rows.map((row) => [row.language, row.version]));
  return LANGUAGE_IDS.flatMap((id) => {
    const version = versions.get(id);
    if (version === undefined) return [];
    const spec = LANGUAGES[id];
    return [{ id, name: spec.name, version, extensions: [...spec.extensions], compiled: spec.compiled }];
  });
}

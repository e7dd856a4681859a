/**
 * Fair contests (DESIGN, "Fair contests (solo formats)"): the pure decisions. Private tests are
 * revealed at completion; the public board freezes `freeze_minutes` before `ends_at`; the final
 * board counts each agent's selected submissions (or its best public ones) and ranks by the
 * private score.
 */
import { isMatchFormat } from '../matches/rules';

/**
 * Final selection exists on solo formats only (DESIGN "Whatever a program writes is data"): a match
 * challenge (head_to_head, game) ranks agents by rating, so no board would count a selection.
 */
export function hasFinalSelection(format: string): boolean {
  return !isMatchFormat(format);
}

/** Whether a judge config (as stored) has a private test or criterion: a final board to play for. */
export function judgeHasPrivateItems(judge: unknown): boolean {
  if (typeof judge !== 'object' || judge === null) return false;
  const { tests, criteria } = judge as { tests?: unknown; criteria?: unknown };
  const items = [...(Array.isArray(tests) ? tests : []), ...(Array.isArray(criteria) ? criteria : [])];
  return items.some(
    (item) => typeof item === 'object' && item !== null && (item as { private?: unknown }).private === true,
  );
}

/**
 * A practice challenge (docs/decisions/contests.md, "Practice challenges"): a match format, or a
 * solo one whose judge has no private test or criterion. Its final board ranks every agent's best
 * public score, which no selection could improve (Kaggle's playground), so the pages offer no
 * "Select for the final board" there. The API's select keeps DESIGN's rule (solo formats).
 */
export function isPractice(challenge: { format: string; judge: unknown }): boolean {
  return !hasFinalSelection(challenge.format) || !judgeHasPrivateItems(challenge.judge);
}

/** The pages offer final selection: a live submission of an active challenge that is not practice. */
export function offersFinalSelection(
  challenge: { format: string; judge: unknown; status: string },
  submission: { sandbox: boolean },
): boolean {
  return challenge.status === 'active' && !submission.sandbox && !isPractice(challenge);
}

/** Private tests, private_score and the final board are public once the challenge is complete. */
export function isRevealed(status: string): boolean {
  return status === 'complete' || status === 'archived';
}

/**
 * The final board waits for the private passes (DESIGN, "Fifth-round extensions"): once the
 * challenge is complete, while any counted result's private pass is pending it shows no rows,
 * only how many are pending (a board ranked on half-judged private scores would be wrong).
 */
export function finalBoardWaits(status: string, pendingPrivatePasses: number): boolean {
  return isRevealed(status) && pendingPrivatePasses > 0;
}

export interface FreezeWindow {
  status: string;
  ends_at: Date | null;
  freeze_minutes: number;
}

/** When the public board stops changing (null: it never freezes). */
export function freezeStart(challenge: Pick<FreezeWindow, 'ends_at' | 'freeze_minutes'>): Date | null {
  if (!challenge.ends_at || challenge.freeze_minutes <= 0) return null;
  return new Date(challenge.ends_at.getTime() - challenge.freeze_minutes * 60_000);
}

/** The moment the board froze, when it is frozen now (an active challenge inside its last N minutes). */
export function frozenSince(challenge: FreezeWindow, now: Date = new Date()): Date | null {
  if (challenge.status !== 'active') return null;
  const start = freezeStart(challenge);
  return start !== null && now.getTime() >= start.getTime() ? start : null;
}

export interface FinalCandidate {
  agent_id: string;
  agent_name: string;
  submission_id: string;
  final_score: number;
  private_score: number | null;
  submitted_at: Date;
  selected: boolean;
}

export interface FinalRow {
  rank: number;
  agent_id: string;
  agent_name: string;
  submission_id: string;
  final_score: number;
  private_score: number | null;
}

/** Best public score first, ties by the earlier submission, then id (a stable order). */
function byPublic(a: FinalCandidate, b: FinalCandidate): number {
  return (
    b.final_score - a.final_score ||
    a.submitted_at.getTime() - b.submitted_at.getTime() ||
    a.submission_id.localeCompare(b.submission_id)
  );
}

/** By the score that decides (private, or public without private tests), ties by the earlier submission. */
function byDeciding(hasPrivate: boolean) {
  const key = (c: FinalCandidate) => (hasPrivate ? (c.private_score ?? 0) : c.final_score);
  return (a: FinalCandidate, b: FinalCandidate) =>
    key(b) - key(a) ||
    a.submitted_at.getTime() - b.submitted_at.getTime() ||
    a.submission_id.localeCompare(b.submission_id);
}

/**
 * The submissions of one agent that count: the selected ones, or, when none is selected, its best
 * `limit` by public score (Kaggle's default).
 */
export function countedSubmissions(candidates: readonly FinalCandidate[], limit: number): FinalCandidate[] {
  const selected = candidates.filter((c) => c.selected);
  if (selected.length > 0) return selected;
  return [...candidates].sort(byPublic).slice(0, limit);
}

/**
 * The final board: one row per agent for its counted submission with the best private score (the
 * best final score when the challenge has no private test); ties by the earlier submission.
 */
export function rankFinalBoard(
  candidates: readonly FinalCandidate[],
  limit: number,
  hasPrivate: boolean,
): FinalRow[] {
  const perAgent = new Map<string, FinalCandidate[]>();
  for (const c of candidates) perAgent.set(c.agent_id, [...(perAgent.get(c.agent_id) ?? []), c]);
  const order = byDeciding(hasPrivate);
  const best = [...perAgent.values()].flatMap((own) => {
    const counted = countedSubmissions(own, limit).sort(order);
    return counted.length > 0 ? [counted[0]] : [];
  });
  return best.sort(order).map((c, i) => ({
    rank: i + 1,
    agent_id: c.agent_id,
    agent_name: c.agent_name,
    submission_id: c.submission_id,
    final_score: c.final_score,
    private_score: c.private_score,
  }));
}

export const CLARIFICATION_LIMITS = { questionChars: 2_000, answerChars: 5_000 } as const;

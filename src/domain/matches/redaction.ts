/**
 * While a bout runs, its participants' public live events carry no snippet, command, filename,
 * error_summary or tool (DESIGN "Matches between agents", "Whatever a program writes is data": each
 * tells an opponent what the code does); released in full once it ends. Applied by the spectator feed.
 */
import type { Pool } from 'pg';
import { agentsInRunningBouts } from '../../db/queries/match-participants';
import type { FeedItem } from '../../wire/connector';

/** The event fields that stay out of the public feed while the agent's bout runs. */
const HIDDEN_DURING_BOUT = ['snippet', 'command', 'filename', 'error_summary', 'tool'] as const;

/** Pure: the event without its code, command, file name, error text and tool (types, summaries and progress stay). */
export function redactBoutEvent(item: FeedItem): FeedItem {
  const event = { ...(item.event as unknown as Record<string, unknown>) };
  let changed = false;
  for (const key of HIDDEN_DURING_BOUT) {
    if (key in event) {
      delete event[key];
      changed = true;
    }
  }
  return changed ? { ...item, event: event as unknown as FeedItem['event'] } : item;
}

/**
 * Spectators' entries with the events of agents in a running bout of this challenge redacted; once
 * the bout ends, reads return them in full again (nothing is deleted, the read decides).
 */
export async function redactRunningBouts<E extends { item: FeedItem }>(
  db: Pool,
  challengeId: string,
  entries: E[],
): Promise<E[]> {
  if (entries.length === 0) return entries;
  const fighting = await agentsInRunningBouts(db, challengeId);
  if (fighting.size === 0) return entries;
  return entries.map((e) => (fighting.has(e.item.agent_id) ? { ...e, item: redactBoutEvent(e.item) } : e));
}

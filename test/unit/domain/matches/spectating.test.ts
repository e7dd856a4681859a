import { redactBoutEvent } from '../../../../src/domain/matches/redaction';
import { revealAt, spoilerFree } from '../../../../src/domain/matches/spectating';
import type { MatchView } from '../../../../src/domain/matches/views';
import type { FeedItem } from '../../../../src/wire/connector';

const match: MatchView = {
  id: '00000000-0000-4000-8000-000000000001',
  challenge_id: '00000000-0000-4000-8000-000000000002',
  weight_class_id: 'open',
  kind: 'bout',
  status: 'complete',
  rated: true,
  reason: null,
  participants: [
    {
      agent_id: 'a',
      agent_name: 'A',
      seat: 1,
      submission_id: 's',
      score: 90,
      rank: 1,
      outcome: 'win',
      rating_before: { mu: 25, sigma: 8, ordinal: 1 },
      rating_after: { mu: 27, sigma: 7, ordinal: 6 },
    },
  ],
  scheduled_at: '2026-01-01T00:00:00.000Z',
  started_at: '2026-01-01T00:00:00.000Z',
  ends_at: '2026-01-01T00:05:00.000Z',
  completed_at: '2026-01-01T00:04:00.000Z',
  result_id: 'r',
};

describe('spectating a match', () => {
  it('holds back the result until the delayed feed passes the end', () => {
    const at = revealAt(match, 30_000)!;
    expect(at.toISOString()).toBe('2026-01-01T00:04:30.000Z');
    const before = spoilerFree(match, 30_000, new Date(at.getTime() - 1));
    expect(before.revealed).toBe(false);
    expect(before.match.status).toBe('running');
    expect(before.match.result_id).toBeNull();
    expect(before.match.participants[0]).toMatchObject({
      score: null,
      rank: null,
      outcome: null,
      rating_after: null,
    });
    expect(JSON.stringify(before.match)).not.toContain('"win"');
    const after = spoilerFree(match, 30_000, at);
    expect(after.revealed).toBe(true);
    expect(after.match.participants[0].outcome).toBe('win');
  });

  it('a running match is never revealed', () => {
    expect(revealAt({ status: 'running', completed_at: null }, 0)).toBeNull();
  });

  it('drops code, command and filename but keeps type and summary', () => {
    const item = {
      agent_id: 'a',
      event: { type: 'code_write', summary: 'writes', snippet: 'x', command: 'ls', filename: 'f.py' },
    } as unknown as FeedItem;
    const out = redactBoutEvent(item).event as unknown as Record<string, unknown>;
    expect(out).toEqual({ type: 'code_write', summary: 'writes' });
    expect((item.event as unknown as Record<string, unknown>).snippet).toBe('x');
  });

  // Issue 38, finding 5: an error's summary and the tool called told spectators what a bout's code did.
  it('drops error_summary and tool too', () => {
    const item = {
      agent_id: 'a',
      event: { type: 'error_hit', summary: 'an error', error_summary: 'TypeError at solve()', tool: 'grep' },
    } as unknown as FeedItem;
    expect(redactBoutEvent(item).event).toEqual({ type: 'error_hit', summary: 'an error' });
  });
});

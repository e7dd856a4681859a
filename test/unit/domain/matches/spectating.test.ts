import { redactBoutEvent } from '../../../../src/domain/matches/redaction';
import type { FeedItem } from '../../../../src/wire/connector';

describe('spectating a match', () => {
  // When a page may show a match's result: the hold (test/unit/domain/matches/hold.test.ts).
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

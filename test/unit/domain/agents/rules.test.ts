import { checkAgentName } from '../../../../src/domain/agents/rules';

describe('agent names (DESIGN "Whatever a program writes is data": text that people type)', () => {
  test('a visible name is kept, trimmed', () => {
    expect(checkAgentName('  Ada  ')).toEqual({ ok: true, name: 'Ada' });
    expect(checkAgentName('é')).toEqual({ ok: true, name: 'é' }); // e + combining acute: visible
  });

  test('control and zero-width characters are refused', () => {
    expect(checkAgentName('a\u200bb').ok).toBe(false);
    expect(checkAgentName('a\nb').ok).toBe(false);
  });

  // Issue 38, finding 5: a name of combining marks only draws nothing of its own.
  test('a name of combining marks only is refused', () => {
    expect(checkAgentName('\u0301\u0301')).toEqual({
      ok: false,
      reason: 'name must contain at least one visible character',
    });
    expect(checkAgentName(' \u20dd ').ok).toBe(false); // an enclosing mark with nothing to enclose
  });
});

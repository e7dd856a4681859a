import {
  type EncodedValue,
  encodedEqualsJson,
  parseEncodedValue,
  previewEncoded,
} from '../../../src/judging/sandbox/encoded-value';

describe('encoded values from the sandbox', () => {
  it('compares deeply with JSON, ignoring key order', () => {
    const value: EncodedValue = [
      'o',
      [
        ['b', ['a', [['n', 1], ['s', 'x'], ['z']]]],
        ['a', ['b', true]],
      ],
    ];
    expect(encodedEqualsJson(value, { a: true, b: [1, 'x', null] })).toBe(true);
    expect(encodedEqualsJson(value, { a: true, b: [1, 'x', null], c: 1 })).toBe(false);
    expect(encodedEqualsJson(value, { a: true, b: [1, 'x'] })).toBe(false);
    expect(encodedEqualsJson(value, [true])).toBe(false);
  });

  it('never equates values JSON cannot express', () => {
    expect(encodedEqualsJson(['u'], null)).toBe(false);
    expect(encodedEqualsJson(['n', 'NaN'], null)).toBe(false);
    expect(encodedEqualsJson(['i', '1'], 1)).toBe(false);
    expect(encodedEqualsJson(['f', 'f'], {})).toBe(false);
    expect(encodedEqualsJson(['m', 0], {})).toBe(false);
    expect(encodedEqualsJson(['n', '-0'], 0)).toBe(true);
    expect(encodedEqualsJson(['s', '1'], 1)).toBe(false);
  });

  it('does not treat inherited properties of expected as matches', () => {
    expect(encodedEqualsJson(['o', [['toString', ['s', 'x']]]], { other: 'x' })).toBe(false);
  });

  it('rejects malformed trees from an untrusted child', () => {
    expect(parseEncodedValue(['n', 'nope'])).toBeNull();
    expect(parseEncodedValue(['x'])).toBeNull();
    expect(
      parseEncodedValue([
        'o',
        [
          ['a', ['z']],
          ['a', ['z']],
        ],
      ]),
    ).toBeNull(); // duplicate key
    expect(parseEncodedValue(['a', [['z'], 'loose']])).toBeNull();
    let deep: unknown = ['z'];
    for (let i = 0; i < 200; i++) deep = ['a', [deep]];
    expect(parseEncodedValue(deep)).toBeNull();
    expect(parseEncodedValue(['o', [['__proto__', ['s', 'x']]]])).toEqual(['o', [['__proto__', ['s', 'x']]]]);
  });

  it('previews values for feedback, clipped', () => {
    expect(previewEncoded(['a', [['u'], ['n', 'NaN'], ['i', '10'], ['f', 'solve'], ['s', 'hi']]])).toBe(
      '[undefined,NaN,10n,[Function solve],"hi"]',
    );
    expect(previewEncoded(['s', 'x'.repeat(500)], 50).length).toBeLessThanOrEqual(51);
  });
});

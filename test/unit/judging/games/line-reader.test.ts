/**
 * Issue 37, a player's stderr is bytes (DESIGN, "Whatever a program writes is data"): the log its
 * owner reads is storable text, and says so when NUL or bytes that are not UTF-8 were replaced.
 * Before, the bytes were decoded with Buffer.toString: NUL stayed in the text, invalid UTF-8 became
 * U+FFFD silently, and nothing told the owner.
 */
import { BoundedLog } from '../../../../src/judging/games/line-reader';
import { REPLACED_NOTE } from '../../../../src/lib/storable-text';

describe("a player's stderr (BoundedLog)", () => {
  it('NUL and invalid UTF-8 become U+FFFD, and the log says bytes were replaced', () => {
    const log = new BoundedLog();
    log.push(Buffer.from([0x61, 0x00, 0x62, 0x0a]));
    log.push(Buffer.from([0xff, 0xc0, 0x80, 0x63, 0x0a]));
    const text = log.text();
    expect(text).not.toContain('\u0000');
    expect(text.startsWith('a\uFFFDb\n')).toBe(true);
    expect(text).toContain('c\n');
    expect(text.endsWith(`\n${REPLACED_NOTE}`)).toBe(true);
  });

  it('valid UTF-8 split across chunks is kept as it is, without the note', () => {
    const log = new BoundedLog();
    const bytes = Buffer.from('héllo 😀 日本\n', 'utf8');
    log.push(bytes.subarray(0, 2)); // cuts é in two
    log.push(bytes.subarray(2, 9)); // cuts the emoji
    log.push(bytes.subarray(9));
    expect(log.text()).toBe('héllo 😀 日本\n');
  });

  it('a log cut at its bound inside a character drops that character, not claiming replaced bytes', () => {
    const log = new BoundedLog(5);
    log.push(Buffer.from('a日本', 'utf8')); // 1 + 3 + 3 bytes: the bound falls inside 本
    expect(log.text()).toBe('a日\n… (3 more bytes of stderr dropped)');
  });
});

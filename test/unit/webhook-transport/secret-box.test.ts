import { randomBytes } from 'node:crypto';
import {
  decryptSecret,
  deriveSecretBoxKey,
  encryptSecret,
  SecretBoxError,
  secretPrefix,
} from '../../../src/webhook-transport';

const configuredKey = 'test-server-key-for-secret-box';
const plain = 'my-webhook-secret-ü-🔑';

/** Replace one base64 field of a boxed value with the same bytes, one bit flipped. */
function flipBit(boxed: string, field: 1 | 2 | 3): string {
  const parts = boxed.split(':');
  const bytes = Buffer.from(parts[field]!, 'base64');
  bytes[0] = bytes[0]! ^ 0x01;
  parts[field] = bytes.toString('base64');
  return parts.join(':');
}

describe('secret box', () => {
  it('round-trips with a configured string key and with 32 raw key bytes', () => {
    expect(decryptSecret(encryptSecret(plain, configuredKey), configuredKey)).toBe(plain);
    const rawKey = randomBytes(32);
    expect(decryptSecret(encryptSecret(plain, rawKey), rawKey)).toBe(plain);
    const derived = deriveSecretBoxKey(configuredKey);
    expect(derived).toHaveLength(32);
    expect(decryptSecret(encryptSecret(plain, configuredKey), derived)).toBe(plain);
  });

  it('writes v1:<iv>:<tag>:<ciphertext> with a fresh IV every time and no plaintext', () => {
    const first = encryptSecret(plain, configuredKey);
    const second = encryptSecret(plain, configuredKey);
    expect(first).toMatch(/^v1:[A-Za-z0-9+/]{16}:[A-Za-z0-9+/]{22}==:[A-Za-z0-9+/=]+$/);
    expect(Buffer.from(first.split(':')[1]!, 'base64')).toHaveLength(12);
    expect(first).not.toBe(second);
    expect(first).not.toContain('my-webhook');
  });

  it.each([
    ['iv', 1],
    ['tag', 2],
    ['ciphertext', 3],
  ] as const)('detects a tampered %s', (_name, field) => {
    const boxed = encryptSecret(plain, configuredKey);
    expect(() => decryptSecret(flipBit(boxed, field), configuredKey)).toThrow(SecretBoxError);
  });

  it('refuses a wrong key', () => {
    const boxed = encryptSecret(plain, configuredKey);
    expect(() => decryptSecret(boxed, 'another-server-key-string')).toThrow(/authentication failed/);
  });

  it('refuses malformed values', () => {
    const boxed = encryptSecret(plain, configuredKey);
    const [, iv, tag, ciphertext] = boxed.split(':');
    expect(() => decryptSecret(`v2:${iv}:${tag}:${ciphertext}`, configuredKey)).toThrow(SecretBoxError);
    expect(() => decryptSecret(`v1:${iv}:${tag}`, configuredKey)).toThrow(SecretBoxError);
    expect(() => decryptSecret(`v1:${iv}:${tag}:${ciphertext}:x`, configuredKey)).toThrow(SecretBoxError);
    expect(() => decryptSecret(`v1:${iv}:${tag}:!!${ciphertext}`, configuredKey)).toThrow(/not valid base64/);
    expect(() => decryptSecret(`v1:${iv}:${tag!.slice(0, 8)}:${ciphertext}`, configuredKey)).toThrow(
      SecretBoxError,
    );
    // Truncating the ciphertext is tampering too.
    const shorter = Buffer.from(ciphertext!, 'base64').subarray(1).toString('base64');
    expect(() => decryptSecret(`v1:${iv}:${tag}:${shorter}`, configuredKey)).toThrow(SecretBoxError);
    expect(() => decryptSecret(plain, configuredKey)).toThrow(SecretBoxError);
  });

  it('refuses weak keys', () => {
    expect(() => encryptSecret(plain, 'short')).toThrow(/at least 16/);
    expect(() => encryptSecret(plain, randomBytes(31))).toThrow(/32 bytes/);
  });
});

describe('secretPrefix', () => {
  it.each([
    ['abcdefgh', 'ab'], // spec minimum length: 2 of 8 characters
    ['abcdefghijk', 'ab'],
    ['abcdefghijkl', 'abc'],
    ['abcdefghijklmnop', 'abcd'],
    ['a'.repeat(64), 'aaaa'],
    ['abc', ''],
    ['', ''],
    ['🔑🔑🔑🔑🔑🔑🔑🔑', '🔑🔑'], // counts code points, never splits a surrogate pair
  ])('%j shows %j', (secret, expected) => {
    expect(secretPrefix(secret)).toBe(expected);
    expect(secret.startsWith(secretPrefix(secret))).toBe(true); // a true leading part, nothing added
  });
});

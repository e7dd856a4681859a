/**
 * Subscription secrets at rest.
 *
 * Signing needs the plaintext secret, so (unlike API tokens) it cannot be stored as a hash. It is stored
 * encrypted with a server key: AES-256-GCM, a random 12-byte IV per encryption, output
 * `v1:<iv base64>:<tag base64>:<ciphertext base64>`. The version prefix is also bound in as associated
 * data, so a later `v2` (new key, key id, algorithm) can be introduced and rows re-encrypted lazily.
 *
 * Server key: either 32 raw bytes, or a configured string (e.g. an env var read by the config module)
 * from which the key is derived with HKDF-SHA256 (fixed salt and info below). Configured strings shorter
 * than 16 characters are refused, so a placeholder like "secret" cannot silently become the key.
 *
 * DECISION (secret prefix for display, `secret_prefix` in the API): the secret's first characters, at
 * most 4 and at most a quarter of the secret, with nothing added (a true leading part: the spec's
 * "leading part of the signing secret", DESIGN.md). An 8-character secret (the spec minimum) shows 2
 * characters, a 16+ character secret shows 4. Enough to tell two subscriptions apart, never enough to
 * help guessing.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/** A 32-byte key, or a configured string that the key is derived from. */
export type SecretBoxKey = string | Uint8Array;

const FORMAT_VERSION = 'v1';
const ALGORITHM = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;
const MIN_CONFIGURED_KEY_CHARS = 16;
const HKDF_SALT = 'challenge-service/secret-box';
const HKDF_INFO = 'webhook-subscription-secret/v1';

export const SECRET_PREFIX_MAX_CHARS = 4;

export class SecretBoxError extends Error {
  override readonly name = 'SecretBoxError';
}

/** Derive the AES key from a configured string. Exposed so the config module can derive once at start. */
export function deriveSecretBoxKey(configured: string): Buffer {
  if (configured.length < MIN_CONFIGURED_KEY_CHARS) {
    throw new SecretBoxError(
      `secret box key string must have at least ${MIN_CONFIGURED_KEY_CHARS} characters`,
    );
  }
  return Buffer.from(hkdfSync('sha256', Buffer.from(configured, 'utf8'), HKDF_SALT, HKDF_INFO, KEY_BYTES));
}

export function encryptSecret(plain: string, serverKey: SecretBoxKey): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(ALGORITHM, resolveKey(serverKey), iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(FORMAT_VERSION, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  const tag = cipher.getAuthTag();
  return [FORMAT_VERSION, iv.toString('base64'), tag.toString('base64'), ciphertext.toString('base64')].join(
    ':',
  );
}

/** Throws SecretBoxError when the value is malformed, was tampered with, or the key is wrong. */
export function decryptSecret(boxed: string, serverKey: SecretBoxKey): string {
  const parts = boxed.split(':');
  if (parts.length !== 4 || parts[0] !== FORMAT_VERSION) {
    throw new SecretBoxError('not a v1 secret box value');
  }
  const iv = strictBase64(parts[1]!, 'iv');
  const tag = strictBase64(parts[2]!, 'tag');
  const ciphertext = strictBase64(parts[3]!, 'ciphertext');
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) {
    throw new SecretBoxError('secret box value has a wrong iv or tag length');
  }
  const decipher = createDecipheriv(ALGORITHM, resolveKey(serverKey), iv, { authTagLength: TAG_BYTES });
  decipher.setAAD(Buffer.from(FORMAT_VERSION, 'utf8'));
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
  } catch {
    throw new SecretBoxError('secret box authentication failed (tampered value or wrong key)');
  }
}

/** Leading part of a secret for display; see the decision at the top of this file. */
export function secretPrefix(plain: string): string {
  const codePoints = Array.from(plain); // never split a surrogate pair
  const shown = Math.min(SECRET_PREFIX_MAX_CHARS, Math.floor(codePoints.length / 4));
  return codePoints.slice(0, shown).join('');
}

function resolveKey(serverKey: SecretBoxKey): Buffer {
  if (typeof serverKey === 'string') return deriveSecretBoxKey(serverKey);
  if (serverKey.length !== KEY_BYTES) {
    throw new SecretBoxError(`secret box key must be ${KEY_BYTES} bytes, got ${serverKey.length}`);
  }
  return Buffer.from(serverKey);
}

/** Buffer.from(..., 'base64') silently skips junk; a stored value that does not round-trip is corrupt. */
function strictBase64(value: string, what: string): Buffer {
  const bytes = Buffer.from(value, 'base64');
  if (bytes.toString('base64') !== value) {
    throw new SecretBoxError(`secret box ${what} is not valid base64`);
  }
  return bytes;
}

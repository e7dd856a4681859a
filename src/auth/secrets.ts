import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

export const API_TOKEN_PREFIX = 'svc_sk_';
export const SANDBOX_TOKEN_PREFIX = 'svc_sk_test_';
export const LIVE_TOKEN_PREFIX = 'svc_sk_live_';
export const AGENT_KEY_PREFIX = 'aa_';

/** 32 random bytes, base64url: 256 bits of entropy behind a readable prefix. */
export function generateSecret(prefix: string): string {
  return prefix + randomBytes(32).toString('base64url');
}

export function sha256Hex(value: string): string {
  return hash('sha256', value, 'hex');
}

/** Constant-time equality for secrets of any length (both sides hashed first). */
export function constantTimeEqual(a: string, b: string): boolean {
  const ha = hash('sha256', a, 'buffer');
  const hb = hash('sha256', b, 'buffer');
  return timingSafeEqual(ha, hb);
}

/** Leading characters shown in listings: the prefix plus 4 characters, never enough to guess. */
export function displayPrefix(secret: string, prefix: string): string {
  return secret.slice(0, prefix.length + 4);
}

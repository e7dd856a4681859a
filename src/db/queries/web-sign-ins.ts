import type { Queryable } from '../pool';
import { queryOne } from '../pool';

export interface WebSignInRow {
  state: string;
  nonce: string;
  code_verifier: string;
  return_to: string;
  expires_at: Date;
}

export async function insertWebSignIn(
  db: Queryable,
  s: {
    secretHash: string;
    state: string;
    nonce: string;
    codeVerifier: string;
    returnTo: string;
    ttlSeconds: number;
  },
): Promise<void> {
  // Abandoned sign-ins are swept here: the table only ever holds the last few minutes' attempts.
  await db.query('DELETE FROM web_sign_ins WHERE expires_at < now()');
  await db.query(
    `INSERT INTO web_sign_ins (secret_hash, state, nonce, code_verifier, return_to, expires_at)
     VALUES ($1, $2, $3, $4, $5, now() + make_interval(secs => $6::int))`,
    [s.secretHash, s.state, s.nonce, s.codeVerifier, s.returnTo, s.ttlSeconds],
  );
}

/** Takes the sign-in (used once); null when unknown or expired. */
export function takeWebSignIn(db: Queryable, secretHash: string): Promise<WebSignInRow | null> {
  return queryOne<WebSignInRow>(
    db,
    `DELETE FROM web_sign_ins WHERE secret_hash = $1 AND expires_at > now()
     RETURNING state, nonce, code_verifier, return_to, expires_at`,
    [secretHash],
  );
}

import type { Queryable } from '../pool';
import { findAgentKeyByHash, touchAgentKey } from './agent-keys';
import { findApiTokenByHash, touchApiToken } from './api-tokens';
import type { Bound } from './bound';
import { upsertUserBySubject } from './users';

/**
 * What resolving a request's credentials (src/auth/authenticate.ts) reads and writes: an API token
 * or a connector key by its hash and their last use, and the person of a session JWT (upserted by
 * its subject, name and role). Taken through the deps (`stores.credentials`; this SQL one unless a
 * unit test hands it test/fakes/stores/credentials.ts); test/contracts/credential-store.cases.ts
 * holds both to the same cases.
 */
export interface CredentialStore {
  findApiTokenByHash: Bound<typeof findApiTokenByHash>;
  touchApiToken: Bound<typeof touchApiToken>;
  findAgentKeyByHash: Bound<typeof findAgentKeyByHash>;
  touchAgentKey: Bound<typeof touchAgentKey>;
  upsertUserBySubject: Bound<typeof upsertUserBySubject>;
}

/** The credentials' store on PostgreSQL. */
export function sqlCredentialStore(db: Queryable): CredentialStore {
  return {
    findApiTokenByHash: (hash) => findApiTokenByHash(db, hash),
    touchApiToken: (id) => touchApiToken(db, id),
    findAgentKeyByHash: (hash) => findAgentKeyByHash(db, hash),
    touchAgentKey: (id) => touchAgentKey(db, id),
    upsertUserBySubject: (subject, name, role) => upsertUserBySubject(db, subject, name, role),
  };
}

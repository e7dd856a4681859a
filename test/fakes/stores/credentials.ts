/**
 * The credentials' store in memory (CredentialStore, src/db/queries/credentials.ts), for the unit
 * tier: resolveCredentials runs on it without PostgreSQL. test/contracts/credential-store.cases.ts
 * holds it and the SQL store to the same cases.
 */
import { randomUUID } from 'node:crypto';
import type { AgentKeyAuthRow } from '../../../src/db/queries/agent-keys';
import type { ApiTokenAuthRow } from '../../../src/db/queries/api-tokens';
import type { CredentialStore } from '../../../src/db/queries/credentials';
import type { UserRow } from '../../../src/db/queries/users';

export interface FakeCredentialStore extends CredentialStore {
  /** Users by subject (read them to assert what was stored). */
  readonly users: Map<string, UserRow>;
  /** API tokens by hash; `role` is read from the token's user at lookup, as the SQL join does. */
  readonly apiTokens: Map<string, Omit<ApiTokenAuthRow, 'role'> & { last_used_at: Date | null }>;
  readonly agentKeys: Map<string, AgentKeyAuthRow & { last_used_at: Date | null }>;
}

const TOUCH_EVERY_MS = 60_000;

export function createFakeCredentialStore(): FakeCredentialStore {
  const users = new Map<string, UserRow>();
  const apiTokens: FakeCredentialStore['apiTokens'] = new Map();
  const agentKeys: FakeCredentialStore['agentKeys'] = new Map();
  // As the UPDATE's condition: at most once a minute.
  const touch = (row: { last_used_at: Date | null } | undefined) => {
    const now = Date.now();
    if (row && (row.last_used_at === null || row.last_used_at.getTime() < now - TOUCH_EVERY_MS))
      row.last_used_at = new Date(now);
  };
  return {
    users,
    apiTokens,
    agentKeys,
    async findApiTokenByHash(hash) {
      const row = apiTokens.get(hash);
      if (!row) return null;
      const user = [...users.values()].find((u) => u.id === row.user_id);
      if (!user) return null;
      const { last_used_at: _used, ...auth } = row;
      return { ...auth, scopes: [...auth.scopes], role: user.role };
    },
    async touchApiToken(id) {
      touch([...apiTokens.values()].find((t) => t.id === id));
    },
    async findAgentKeyByHash(hash) {
      const row = agentKeys.get(hash);
      if (!row) return null;
      const { last_used_at: _used, ...auth } = row;
      return { ...auth };
    },
    async touchAgentKey(id) {
      touch([...agentKeys.values()].find((k) => k.id === id));
    },
    async upsertUserBySubject(subject, name, role) {
      // PostgreSQL refuses text holding NUL: so does this store.
      if ((subject + (name ?? '')).includes('\u0000'))
        throw new Error('invalid byte sequence for encoding "UTF8"');
      const found = users.get(subject);
      if (found) {
        // The name is kept when the token names none; the role is the token's.
        Object.assign(found, { name: name ?? found.name, role });
        return { ...found };
      }
      const row: UserRow = { id: randomUUID(), subject, name, role, created_at: new Date() };
      users.set(subject, row);
      return { ...row };
    },
  };
}

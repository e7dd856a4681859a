/** The credentials' store contract (test/contracts/credential-store.cases.ts) on the in-memory store. */
import { randomUUID } from 'node:crypto';
import { credentialStoreContract } from '../../contracts/credential-store.cases';
import { createFakeCredentialStore } from '../../fakes/stores/credentials';

describe('the in-memory credentials store', () => {
  credentialStoreContract(() => {
    const store = createFakeCredentialStore();
    return {
      store,
      async newApiToken(userId, hash, token) {
        const id = randomUUID();
        store.apiTokens.set(hash, {
          id,
          user_id: userId,
          agent_id: randomUUID(),
          scopes: [...token.scopes],
          sandbox: token.sandbox,
          token_hash: hash,
          expires_at: null,
          revoked_at: null,
          last_used_at: null,
        });
        return id;
      },
      async newAgentKey(ownerId, hash) {
        const key = {
          id: randomUUID(),
          agent_id: randomUUID(),
          owner_user_id: ownerId,
          key_hash: hash,
          expires_at: new Date(Date.now() + 3_600_000),
          revoked_at: null,
          last_used_at: null,
        };
        store.agentKeys.set(hash, key);
        return { id: key.id, agentId: key.agent_id };
      },
      async lastUsed(kind, id) {
        const rows = kind === 'apiToken' ? [...store.apiTokens.values()] : [...store.agentKeys.values()];
        return rows.find((r) => r.id === id)?.last_used_at ?? null;
      },
    };
  });
});

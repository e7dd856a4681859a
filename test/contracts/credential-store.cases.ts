/**
 * The credentials' store contract: the same cases against the in-memory store (unit tier,
 * test/unit/contracts/credential-store.test.ts) and the SQL one on PostgreSQL
 * (test/service/credential-store.test.ts).
 */
import { randomBytes } from 'node:crypto';
import type { CredentialStore } from '../../src/db/queries/credentials';
import { storableText, type StorableText } from '../../src/lib/storable-text';

export interface CredentialStoreHarness {
  store: CredentialStore;
  /** An API token with this hash for the user (an agent of the user's own), answering its id. */
  newApiToken(userId: string, hash: string, token: { scopes: string[]; sandbox: boolean }): Promise<string>;
  /** A connector key with this hash for an agent of the user's own, answering its id and agent. */
  newAgentKey(ownerId: string, hash: string): Promise<{ id: string; agentId: string }>;
  /** When the token or key was last used (null: never). */
  lastUsed(kind: 'apiToken' | 'agentKey', id: string): Promise<Date | null>;
}

const subject = () => `contract|${randomBytes(6).toString('hex')}`;
const hash = () => randomBytes(32).toString('hex');
const name = (s: string): StorableText => storableText(s);

export function credentialStoreContract(harness: () => CredentialStoreHarness): void {
  let h: CredentialStoreHarness;
  let store: CredentialStore;
  beforeEach(() => {
    h = harness();
    store = h.store;
  });

  test("a subject's user is made once, then follows the token: its name (kept when none is given) and role", async () => {
    const sub = subject();
    const made = await store.upsertUserBySubject(sub, name('Ada'), 'user');
    expect(made).toMatchObject({ subject: sub, name: 'Ada', role: 'user' });
    expect(await store.upsertUserBySubject(sub, name('Ada'), 'user')).toMatchObject({
      id: made.id,
      name: 'Ada',
    });
    expect(await store.upsertUserBySubject(sub, name('Ada L.'), 'user')).toMatchObject({
      id: made.id,
      name: 'Ada L.',
    });
    expect(await store.upsertUserBySubject(sub, null, 'admin')).toMatchObject({
      id: made.id,
      name: 'Ada L.',
      role: 'admin',
    });
    const other = await store.upsertUserBySubject(subject(), null, 'user');
    expect(other.id).not.toBe(made.id);
    expect(other.name).toBeNull();
  });

  test('text holding NUL is refused (what the sanitizer exists for)', async () => {
    await expect(store.upsertUserBySubject(`${subject()}\u0000`, null, 'user')).rejects.toThrow();
    await expect(store.upsertUserBySubject(subject(), 'A\u0000' as StorableText, 'user')).rejects.toThrow();
  });

  test("an API token is found by its hash with its user's role; an unknown hash is null", async () => {
    const user = await store.upsertUserBySubject(subject(), null, 'admin');
    const tokenHash = hash();
    const id = await h.newApiToken(user.id, tokenHash, { scopes: ['agents:read'], sandbox: true });
    expect(await store.findApiTokenByHash(tokenHash)).toMatchObject({
      id,
      user_id: user.id,
      scopes: ['agents:read'],
      sandbox: true,
      token_hash: tokenHash,
      expires_at: null,
      revoked_at: null,
      role: 'admin',
    });
    expect(await store.findApiTokenByHash(hash())).toBeNull();
  });

  test("a connector key is found by its hash with its agent's owner; an unknown hash is null", async () => {
    const owner = await store.upsertUserBySubject(subject(), null, 'user');
    const keyHash = hash();
    const key = await h.newAgentKey(owner.id, keyHash);
    const found = await store.findAgentKeyByHash(keyHash);
    expect(found).toMatchObject({
      id: key.id,
      agent_id: key.agentId,
      owner_user_id: owner.id,
      key_hash: keyHash,
      revoked_at: null,
    });
    expect(found!.expires_at).toBeInstanceOf(Date);
    expect(await store.findAgentKeyByHash(hash())).toBeNull();
  });

  test('a use is recorded at most once a minute, for tokens and keys', async () => {
    const user = await store.upsertUserBySubject(subject(), null, 'user');
    const tokenId = await h.newApiToken(user.id, hash(), { scopes: [], sandbox: false });
    const key = await h.newAgentKey(user.id, hash());
    expect(await h.lastUsed('apiToken', tokenId)).toBeNull();
    await store.touchApiToken(tokenId);
    await store.touchAgentKey(key.id);
    const [tokenUsed, keyUsed] = [
      await h.lastUsed('apiToken', tokenId),
      await h.lastUsed('agentKey', key.id),
    ];
    expect(tokenUsed).toBeInstanceOf(Date);
    expect(keyUsed).toBeInstanceOf(Date);
    await store.touchApiToken(tokenId);
    await store.touchAgentKey(key.id);
    expect(await h.lastUsed('apiToken', tokenId)).toEqual(tokenUsed);
    expect(await h.lastUsed('agentKey', key.id)).toEqual(keyUsed);
  });
}

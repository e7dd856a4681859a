import { bySpecificity } from '../../../../src/api/app';
import type { AnyRouteDef } from '../../../../src/api/route';
import { pagination } from '../../../../src/api/routes/challenges';
import {
  createChallengeBody,
  listChallengesQuery,
  patchChallengeBody,
  quarantineBody,
} from '../../../../src/api/schemas/challenges';
import type { Principal } from '../../../../src/auth/principal';
import { buildChallengeListWhere } from '../../../../src/db/queries/challenges';
import {
  acceptsEntries,
  checkWindow,
  enterability,
  isEnterable,
  scheduleOf,
} from '../../../../src/domain/challenges/rules';
import { canSeeChallenge, visibleStatuses } from '../../../../src/domain/challenges/policy';
import { challengeLifecycleWorkflowId } from '../../../../src/domain/challenges/contract';

const NOW = new Date('2030-06-01T12:00:00Z');
const before = (s: number) => new Date(NOW.getTime() - s * 1000);
const after = (s: number) => new Date(NOW.getTime() + s * 1000);

describe('enterability', () => {
  test('active, started and not ended is enterable', () => {
    expect(isEnterable({ status: 'active', starts_at: null, ends_at: null }, NOW)).toBe(true);
    expect(isEnterable({ status: 'active', starts_at: before(60), ends_at: after(60) }, NOW)).toBe(true);
    expect(isEnterable({ status: 'active', starts_at: NOW, ends_at: after(1) }, NOW)).toBe(true); // starts_at inclusive
  });

  test.each(['draft', 'complete', 'archived'])('%s is not enterable', (status) => {
    expect(enterability({ status, starts_at: null, ends_at: null }, NOW)).toMatchObject({
      ok: false,
      reason: 'not_active',
    });
  });

  test('before the start and at/after the end it is not', () => {
    expect(enterability({ status: 'active', starts_at: after(1), ends_at: null }, NOW)).toMatchObject({
      ok: false,
      reason: 'not_started',
    });
    expect(enterability({ status: 'active', starts_at: null, ends_at: NOW }, NOW)).toMatchObject({
      ok: false,
      reason: 'ended',
    }); // ends_at exclusive
    expect(enterability({ status: 'active', starts_at: null, ends_at: before(1) }, NOW)).toMatchObject({
      ok: false,
      reason: 'ended',
    });
  });

  test('accepts the public Challenge shape (ISO strings)', () => {
    expect(
      isEnterable(
        { status: 'active', starts_at: before(5).toISOString(), ends_at: after(5).toISOString() },
        NOW,
      ),
    ).toBe(true);
    expect(isEnterable({ status: 'active', starts_at: null, ends_at: before(5).toISOString() }, NOW)).toBe(
      false,
    );
  });

  test('entries (registration) are accepted before the start, never after the end or when not active', () => {
    expect(acceptsEntries({ status: 'active', starts_at: after(3600), ends_at: after(7200) }, NOW)).toEqual({
      ok: true,
    });
    expect(acceptsEntries({ status: 'active', starts_at: null, ends_at: before(1) }, NOW)).toMatchObject({
      ok: false,
      reason: 'ended',
    });
    expect(acceptsEntries({ status: 'draft', starts_at: after(3600), ends_at: null }, NOW)).toMatchObject({
      ok: false,
      reason: 'not_active',
    });
  });
});

describe('visibility', () => {
  const anonymous: Principal = { kind: 'anonymous' };
  const user: Principal = { kind: 'user', userId: 'u', role: 'user', name: null };
  const admin: Principal = { kind: 'user', userId: 'a', role: 'admin', name: null };
  const adminToken: Principal = {
    kind: 'apiToken',
    tokenId: 't',
    userId: 'a',
    agentId: 'g',
    scopes: [],
    sandbox: false,
    role: 'admin',
  };

  test('the public sees active, complete, archived; operators (JWT role admin) also drafts', () => {
    expect(visibleStatuses(anonymous)).toEqual(['active', 'complete', 'archived']);
    expect(visibleStatuses(user)).toEqual(['active', 'complete', 'archived']);
    expect(visibleStatuses(adminToken)).toEqual(['active', 'complete', 'archived']);
    expect(visibleStatuses(admin)).toEqual(['draft', 'active', 'complete', 'archived']);
  });

  test('a status filter narrows; a non-admin asking for drafts gets nothing', () => {
    expect(visibleStatuses(user, 'draft')).toEqual([]);
    expect(visibleStatuses(user, 'complete')).toEqual(['complete']);
    expect(visibleStatuses(admin, 'draft')).toEqual(['draft']);
  });

  test('drafts are readable by operators only', () => {
    expect(canSeeChallenge(user, { status: 'draft' })).toBe(false);
    expect(canSeeChallenge(admin, { status: 'draft' })).toBe(true);
    expect(canSeeChallenge(anonymous, { status: 'archived' })).toBe(true);
  });
});

describe('list filter building', () => {
  test('statuses always bound; optional filters add numbered parameters in order', () => {
    expect(buildChallengeListWhere({ statuses: ['active'] })).toEqual({
      where: 'WHERE c.status = ANY($1::text[])',
      values: [['active']],
    });
    expect(
      buildChallengeListWhere({
        statuses: ['active', 'complete'],
        category: 'algo',
        weightClassId: 'heavy',
        format: 'solo',
      }),
    ).toEqual({
      where:
        'WHERE c.status = ANY($1::text[]) AND lower(c.category) = lower($2) AND c.weight_class_id = $3 AND lower(c.format) = lower($4)',
      values: [['active', 'complete'], 'algo', 'heavy', 'solo'],
    });
    expect(
      buildChallengeListWhere({ statuses: ['draft'], format: "x'; DROP TABLE challenges; --" }).values[1],
    ).toBe("x'; DROP TABLE challenges; --");
  });

  test('pagination object', () => {
    expect(pagination(3, 1, 2)).toEqual({ total: 3, page: 1, limit: 2, has_more: true });
    expect(pagination(3, 2, 2)).toEqual({ total: 3, page: 2, limit: 2, has_more: false });
    expect(pagination(0, 1, 20)).toEqual({ total: 0, page: 1, limit: 20, has_more: false });
  });

  test('query defaults and bounds', () => {
    expect(listChallengesQuery.parse({})).toEqual({ page: 1, limit: 20 });
    expect(listChallengesQuery.parse({ page: '3', limit: '100', weight_class: 'w' })).toEqual({
      page: 3,
      limit: 100,
      weight_class: 'w',
    });
    for (const bad of [
      { limit: '0' },
      { limit: '101' },
      { page: '0' },
      { page: '-1' },
      { status: 'open' },
      { limit: ['1', '2'] },
    ]) {
      expect(listChallengesQuery.safeParse(bad).success).toBe(false);
    }
  });
});

describe('request bodies', () => {
  const base = {
    title: 'T',
    category: 'c',
    format: 'solo',
    weight_class_id: 'w',
    judge: { kind: 'rubric', criteria: [{ name: 'n', check: { type: 'contains', value: 'x' } }] },
  };

  test('create applies defaults and the judge schema', () => {
    const parsed = createChallengeBody.parse(base);
    expect(parsed).toMatchObject({
      description: '',
      starts_at: null,
      ends_at: null,
      is_featured: false,
      max_submissions_per_session: 10,
    });
    expect(parsed.judge).toMatchObject({ kind: 'rubric', criteria: [{ weight: 1, hidden: false }] });
    expect(createChallengeBody.safeParse({ ...base, judge: { kind: 'http', url: 'ftp://x' } }).success).toBe(
      false,
    );
    expect(createChallengeBody.safeParse({ ...base, extra: 1 }).success).toBe(false);
  });

  test('window: ends_at must be after starts_at (in the body, and merged with the row)', () => {
    expect(
      createChallengeBody.safeParse({
        ...base,
        starts_at: '2030-01-01T00:00:00Z',
        ends_at: '2030-01-01T00:00:00Z',
      }).success,
    ).toBe(false);
    expect(
      createChallengeBody.safeParse({
        ...base,
        starts_at: '2030-01-01T00:00:00Z',
        ends_at: '2030-01-01T00:00:01+00:00',
      }).success,
    ).toBe(true);
    expect(() => checkWindow(new Date('2030-01-02T00:00:00Z'), '2030-01-01T00:00:00Z')).toThrow(/ends_at/);
    expect(() => checkWindow(null, '2030-01-01T00:00:00Z')).not.toThrow();
  });

  test('patch takes any non-empty subset, never status', () => {
    expect(patchChallengeBody.safeParse({}).success).toBe(false);
    expect(patchChallengeBody.safeParse({ status: 'active' }).success).toBe(false);
    expect(patchChallengeBody.parse({ ends_at: null })).toEqual({ ends_at: null });
  });

  test('quarantine needs a non-blank reason of at most 1000 characters', () => {
    expect(quarantineBody.safeParse({ reason: 'leak' }).success).toBe(true);
    expect(quarantineBody.safeParse({ reason: '  ' }).success).toBe(false);
    expect(quarantineBody.safeParse({ reason: 'x'.repeat(1001) }).success).toBe(false);
  });
});

describe('lifecycle helpers', () => {
  test('workflow id and schedule', () => {
    expect(challengeLifecycleWorkflowId('abc')).toBe('challenge-lifecycle-abc');
    expect(scheduleOf({ starts_at: new Date('2030-01-01T00:00:00Z'), ends_at: null })).toEqual({
      startsAt: '2030-01-01T00:00:00.000Z',
      endsAt: null,
    });
  });
});

describe('route order', () => {
  const route = (path: string) => ({ path }) as AnyRouteDef;
  test('static segments are registered before parameters, whatever the table order', () => {
    const sorted = [
      route('/api/v1/challenges/:id'),
      route('/api/v1/challenges'),
      route('/api/v1/challenges/assigned'),
      route('/api/v1/challenges/:id/entries'),
    ]
      .sort(bySpecificity)
      .map((r) => r.path);
    expect(sorted.indexOf('/api/v1/challenges/assigned')).toBeLessThan(
      sorted.indexOf('/api/v1/challenges/:id'),
    );
  });
});

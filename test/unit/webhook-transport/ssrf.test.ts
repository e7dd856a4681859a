import {
  assertDeliverableUrl,
  classifyAddress,
  isSyntacticallyDeliverableUrl,
  type HostLookup,
  type ResolvedAddress,
  UnsafeWebhookUrlError,
  webhookUrlSchema,
} from '../../../src/webhook-transport';

/** A resolver that answers from a table and records what it was asked. */
function fakeDns(table: Record<string, string[]>): HostLookup & { calls: string[] } {
  const calls: string[] = [];
  const lookup = async (hostname: string): Promise<ResolvedAddress[]> => {
    calls.push(hostname);
    const addresses = table[hostname];
    if (!addresses)
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(lookup, { calls });
}

const publicDns = fakeDns({ 'hooks.example.com': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'] });

async function refusal(url: string, allowPrivate = false, lookup: HostLookup = publicDns) {
  try {
    await assertDeliverableUrl(url, { allowPrivate, lookup });
  } catch (error) {
    if (error instanceof UnsafeWebhookUrlError) return error;
    throw error;
  }
  throw new Error(`expected ${url} to be refused`);
}

describe('assertDeliverableUrl: refused without DNS (literal addresses, schemes, names)', () => {
  it.each([
    // scheme and form
    ['http://hooks.example.com/', 'SCHEME_NOT_ALLOWED'],
    ['ftp://hooks.example.com/', 'SCHEME_NOT_ALLOWED'],
    ['file:///etc/passwd', 'SCHEME_NOT_ALLOWED'],
    ['javascript:alert(1)', 'SCHEME_NOT_ALLOWED'],
    ['not a url', 'INVALID_URL'],
    ['/relative/path', 'INVALID_URL'],
    [`https://hooks.example.com/${'a'.repeat(2100)}`, 'INVALID_URL'],
    ['https://user:pass@hooks.example.com/', 'CREDENTIALS_IN_URL'],
    ['https://user@hooks.example.com/', 'CREDENTIALS_IN_URL'],
    ['https://:pass@hooks.example.com/', 'CREDENTIALS_IN_URL'],
    // loopback, also in odd spellings that the URL parser normalises
    ['https://127.0.0.1/', 'ADDRESS_NOT_ALLOWED'],
    ['https://127.255.0.9/', 'ADDRESS_NOT_ALLOWED'],
    ['https://2130706433/', 'ADDRESS_NOT_ALLOWED'],
    ['https://0x7f.1/', 'ADDRESS_NOT_ALLOWED'],
    ['https://0x7f000001/', 'ADDRESS_NOT_ALLOWED'],
    ['https://127.1/', 'ADDRESS_NOT_ALLOWED'],
    ['https://0177.0.0.1/', 'ADDRESS_NOT_ALLOWED'],
    ['https://127.0.0.1./', 'ADDRESS_NOT_ALLOWED'],
    ['https://%31%32%37.0.0.1/', 'ADDRESS_NOT_ALLOWED'],
    ['https://[::1]/', 'ADDRESS_NOT_ALLOWED'],
    ['https://[::ffff:127.0.0.1]/', 'ADDRESS_NOT_ALLOWED'],
    ['https://[0:0:0:0:0:ffff:7f00:1]/', 'ADDRESS_NOT_ALLOWED'],
    ['https://localhost/', 'HOST_NOT_ALLOWED'],
    ['https://LOCALHOST./', 'HOST_NOT_ALLOWED'],
    ['https://api.localhost/', 'HOST_NOT_ALLOWED'],
    // private
    ['https://10.0.0.1/', 'ADDRESS_NOT_ALLOWED'],
    ['https://10.255.255.255/', 'ADDRESS_NOT_ALLOWED'],
    ['https://172.16.0.1/', 'ADDRESS_NOT_ALLOWED'],
    ['https://172.31.255.254/', 'ADDRESS_NOT_ALLOWED'],
    ['https://192.168.1.1/', 'ADDRESS_NOT_ALLOWED'],
    ['https://[fc00::1]/', 'ADDRESS_NOT_ALLOWED'],
    ['https://[fd12:3456::1]/', 'ADDRESS_NOT_ALLOWED'],
    ['https://[::ffff:10.0.0.1]/', 'ADDRESS_NOT_ALLOWED'],
    // link-local and metadata
    ['https://169.254.169.254/latest/meta-data/', 'ADDRESS_NOT_ALLOWED'],
    ['https://169.254.1.1/', 'ADDRESS_NOT_ALLOWED'],
    ['https://[fe80::1]/', 'ADDRESS_NOT_ALLOWED'],
    ['https://[febf::1]/', 'ADDRESS_NOT_ALLOWED'],
    ['https://[::ffff:169.254.169.254]/', 'ADDRESS_NOT_ALLOWED'],
    ['https://[fd00:ec2::254]/', 'ADDRESS_NOT_ALLOWED'],
    ['https://metadata.google.internal/computeMetadata/v1/', 'HOST_NOT_ALLOWED'],
    ['https://METADATA.google.internal./', 'HOST_NOT_ALLOWED'],
    ['https://metadata.goog/', 'HOST_NOT_ALLOWED'],
    ['https://metadata/', 'HOST_NOT_ALLOWED'],
    ['https://instance-data.ec2.internal/', 'HOST_NOT_ALLOWED'],
    // CGNAT (incl. Alibaba's metadata 100.100.100.200), this-network, multicast, broadcast, reserved
    ['https://100.64.0.1/', 'ADDRESS_NOT_ALLOWED'],
    ['https://100.100.100.200/', 'ADDRESS_NOT_ALLOWED'],
    ['https://100.127.255.255/', 'ADDRESS_NOT_ALLOWED'],
    ['https://0.0.0.0/', 'ADDRESS_NOT_ALLOWED'],
    ['https://0/', 'ADDRESS_NOT_ALLOWED'],
    ['https://0.1.2.3/', 'ADDRESS_NOT_ALLOWED'],
    ['https://[::]/', 'ADDRESS_NOT_ALLOWED'],
    ['https://224.0.0.1/', 'ADDRESS_NOT_ALLOWED'],
    ['https://239.255.255.250/', 'ADDRESS_NOT_ALLOWED'],
    ['https://[ff02::1]/', 'ADDRESS_NOT_ALLOWED'],
    ['https://255.255.255.255/', 'ADDRESS_NOT_ALLOWED'],
    ['https://240.0.0.1/', 'ADDRESS_NOT_ALLOWED'],
    // documentation, benchmarking and other special-purpose ranges
    ['https://192.0.2.10/', 'ADDRESS_NOT_ALLOWED'],
    ['https://198.51.100.7/', 'ADDRESS_NOT_ALLOWED'],
    ['https://203.0.113.99/', 'ADDRESS_NOT_ALLOWED'],
    ['https://198.18.0.1/', 'ADDRESS_NOT_ALLOWED'],
    ['https://192.0.0.170/', 'ADDRESS_NOT_ALLOWED'],
    ['https://[2001:db8::1]/', 'ADDRESS_NOT_ALLOWED'],
    ['https://[3fff::1]/', 'ADDRESS_NOT_ALLOWED'],
    ['https://[2001::1]/', 'ADDRESS_NOT_ALLOWED'], // Teredo
    ['https://[2002:7f00:1::]/', 'ADDRESS_NOT_ALLOWED'], // 6to4 wrapping 127.0.0.1
    ['https://[64:ff9b::7f00:1]/', 'ADDRESS_NOT_ALLOWED'], // NAT64 wrapping 127.0.0.1
    ['https://[64:ff9b::a9fe:a9fe]/', 'ADDRESS_NOT_ALLOWED'], // NAT64 wrapping the metadata address
    ['https://[::7f00:1]/', 'ADDRESS_NOT_ALLOWED'], // IPv4-compatible (deprecated)
    ['https://[4000::1]/', 'ADDRESS_NOT_ALLOWED'], // outside global unicast
    // internal-only names
    ['https://intranet/', 'HOST_NOT_ALLOWED'],
    ['https://printer.local/', 'HOST_NOT_ALLOWED'],
    ['https://db.internal/', 'HOST_NOT_ALLOWED'],
    ['https://nas.home.arpa/', 'HOST_NOT_ALLOWED'],
  ])('%s → %s', async (url, code) => {
    const dns = fakeDns({});
    const error = await refusal(url, false, dns);
    expect(error.code).toBe(code);
    expect(dns.calls).toEqual([]); // decided before any DNS query
  });

  it('explains why, in words', async () => {
    expect((await refusal('https://169.254.169.254/')).message).toBe(
      'host 169.254.169.254 is the cloud metadata address; not allowed',
    );
    expect((await refusal('https://[::ffff:127.0.0.1]/')).message).toMatch(
      /^host ::ffff:7f00:1 is the IPv4-mapped form of 127\.0\.0\.1, a loopback address/,
    );
    expect((await refusal('http://hooks.example.com/')).message).toMatch(/use https/);
  });
});

describe('assertDeliverableUrl: with allowPrivate (tests)', () => {
  it.each([
    'http://127.0.0.1:8080/hook',
    'http://2130706433/',
    'https://127.0.0.1/',
    'http://[::1]:9000/',
    'http://[::ffff:127.0.0.1]/',
  ])('admits loopback %s', async (url) => {
    const target = await assertDeliverableUrl(url, { allowPrivate: true, lookup: fakeDns({}) });
    expect(target.addresses).toHaveLength(1);
    expect(classifyAddress(target.addresses[0]!.address, true).isLoopback).toBe(true);
  });

  it.each([
    ['http://10.0.0.1/', 'ADDRESS_NOT_ALLOWED'],
    ['https://192.168.0.10/', 'ADDRESS_NOT_ALLOWED'],
    ['https://169.254.169.254/', 'ADDRESS_NOT_ALLOWED'],
    ['http://[fe80::1]/', 'ADDRESS_NOT_ALLOWED'],
    ['https://metadata.google.internal/', 'HOST_NOT_ALLOWED'],
    ['http://93.184.216.34/', 'SCHEME_NOT_ALLOWED'], // http to a public address: never
    ['http://user:pw@127.0.0.1/', 'CREDENTIALS_IN_URL'],
  ])('still refuses %s (%s)', async (url, code) => {
    expect((await refusal(url, true)).code).toBe(code);
  });
});

describe('assertDeliverableUrl: after DNS resolution', () => {
  it('admits a name whose every address is public, and returns those addresses to connect to', async () => {
    const target = await assertDeliverableUrl('https://hooks.example.com/path?q=1', {
      allowPrivate: false,
      lookup: publicDns,
    });
    expect(target.url.href).toBe('https://hooks.example.com/path?q=1');
    expect(target.addresses).toEqual([
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 },
    ]);
  });

  it.each([
    [['127.0.0.1'], /resolves to 127\.0\.0\.1, a loopback address/],
    [['::1'], /loopback/],
    [['10.1.2.3'], /private/],
    [['93.184.216.34', '192.168.1.20'], /192\.168\.1\.20, a private address/], // one bad address is enough
    [['169.254.169.254'], /metadata/],
    [['::ffff:169.254.169.254'], /the IPv4-mapped form of 169\.254\.169\.254, the cloud metadata address/],
    [['fe80::1%eth0'], /link-local/],
    [['fd00::5'], /unique-local/],
    [['100.64.1.1'], /carrier-grade NAT/],
    [['0.0.0.0'], /this network/],
    [['not-an-ip'], /not an IP address/],
  ])('refuses a name resolving to %j', async (addresses, reason) => {
    const error = await refusal(
      'https://rebind.example.net/',
      false,
      fakeDns({ 'rebind.example.net': addresses }),
    );
    expect(error.code).toBe('ADDRESS_NOT_ALLOWED');
    expect(error.message).toMatch(reason);
  });

  it('with allowPrivate admits a name resolving to loopback, also over http', async () => {
    const dns = fakeDns({ 'receiver.test': ['127.0.0.1'] });
    const target = await assertDeliverableUrl('http://receiver.test:1234/', {
      allowPrivate: true,
      lookup: dns,
    });
    expect(target.addresses).toEqual([{ address: '127.0.0.1', family: 4 }]);
    // ... but http to a name with any non-loopback address stays refused.
    const mixed = fakeDns({ 'receiver.test': ['127.0.0.1', '93.184.216.34'] });
    expect((await refusal('http://receiver.test/', true, mixed)).code).toBe('SCHEME_NOT_ALLOWED');
  });

  it('refuses names that do not resolve', async () => {
    const error = await refusal('https://nowhere.example.org/', false, fakeDns({}));
    expect(error.code).toBe('UNRESOLVABLE');
    expect(error.message).toMatch(/ENOTFOUND/);
    const empty = fakeDns({ 'empty.example.org': [] });
    expect((await refusal('https://empty.example.org/', false, empty)).code).toBe('UNRESOLVABLE');
  });

  it('uses the system resolver by default: localhost is loopback', async () => {
    const target = await assertDeliverableUrl('http://localhost:4000/hook', { allowPrivate: true });
    expect(target.addresses.length).toBeGreaterThan(0);
    for (const { address } of target.addresses) expect(classifyAddress(address, true).isLoopback).toBe(true);
    expect((await refusal('https://localhost/')).code).toBe('HOST_NOT_ALLOWED');
  });
});

describe('classifyAddress', () => {
  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '2606:4700:4700::1111',
    '2a00:1450:4001::200e',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
  ])('allows public %s', (address) => {
    expect(classifyAddress(address, false)).toEqual({
      allowed: true,
      isLoopback: false,
      description: expect.any(String),
    });
  });

  it('does not mistake neighbours of refused ranges', () => {
    expect(classifyAddress('172.15.255.255', false).allowed).toBe(true);
    expect(classifyAddress('172.32.0.0', false).allowed).toBe(true);
    expect(classifyAddress('100.63.255.255', false).allowed).toBe(true);
    expect(classifyAddress('100.128.0.0', false).allowed).toBe(true);
    expect(classifyAddress('11.0.0.1', false).allowed).toBe(true);
    expect(classifyAddress('223.255.255.255', false).allowed).toBe(true);
    expect(classifyAddress('2001:200::1', false).allowed).toBe(true);
  });
});

describe('request-validation pre-check', () => {
  it('refuses what is refusable without DNS', () => {
    expect(isSyntacticallyDeliverableUrl('https://hooks.example.com/x', false)).toBe(true);
    expect(isSyntacticallyDeliverableUrl('http://hooks.example.com/x', false)).toBe(false);
    expect(isSyntacticallyDeliverableUrl('https://u:p@hooks.example.com/x', false)).toBe(false);
    expect(isSyntacticallyDeliverableUrl('https://0x7f.1/', false)).toBe(false);
    expect(isSyntacticallyDeliverableUrl('https://[::ffff:10.0.0.1]/', false)).toBe(false);
    expect(isSyntacticallyDeliverableUrl('https://metadata.google.internal/', false)).toBe(false);
    expect(isSyntacticallyDeliverableUrl('https://localhost/', false)).toBe(false);
    expect(isSyntacticallyDeliverableUrl('http://localhost:3000/', true)).toBe(true);
    expect(isSyntacticallyDeliverableUrl('http://127.0.0.1:3000/', true)).toBe(true);
    expect(isSyntacticallyDeliverableUrl('http://10.0.0.1/', true)).toBe(false);
  });

  it('works as a zod schema with the reason as message', () => {
    const schema = webhookUrlSchema(false);
    expect(schema.parse('https://hooks.example.com/')).toBe('https://hooks.example.com/');
    const result = schema.safeParse('https://169.254.169.254/');
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toMatch(/metadata/);
  });
});

describe('WEBHOOK_INTERNAL_ORIGINS: exact internal receivers named by the operator', () => {
  const origins = ['http://127.0.0.1:7370', 'http://[::1]:7371'];
  const check = (url: string) =>
    assertDeliverableUrl(url, { allowPrivate: false, internalOrigins: origins, lookup: fakeDns({}) });

  test('a named origin is delivered to its literal address, over http, without DNS', async () => {
    const target = await check('http://127.0.0.1:7370/hooks/a?x=1');
    expect(target.addresses).toEqual([{ address: '127.0.0.1', family: 4 }]);
    expect((await check('http://[::1]:7371/h')).addresses).toEqual([{ address: '::1', family: 6 }]);
  });

  test.each([
    ['another port of the same host', 'http://127.0.0.1:5432/'],
    ['the Temporal frontend', 'http://127.0.0.1:7233/'],
    ['https to the same host and port', 'https://127.0.0.1:7370/'],
    ['credentials in the URL', 'http://u:p@127.0.0.1:7370/'],
    ['a name for the same address', 'http://localhost:7370/'],
  ])('%s stays refused', async (_name, url) => {
    await expect(check(url)).rejects.toBeInstanceOf(UnsafeWebhookUrlError);
  });
});

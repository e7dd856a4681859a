/**
 * SSRF guard for webhook targets (DESIGN.md, Webhooks: "private, link-local and metadata addresses are
 * refused, also after DNS resolution").
 *
 * Policy:
 * - Scheme https. http only with `allowPrivate` (WEBHOOK_ALLOW_PRIVATE=1, meant for tests) and only when
 *   every address of the host is loopback.
 * - No credentials in the URL (they would be sent as Basic auth and end up in logs and listings).
 * - Host names: cloud metadata names, single-label names and internal-only suffixes are refused;
 *   `localhost` / `*.localhost` only with `allowPrivate`.
 * - Addresses (literal, or EVERY address the name resolves to): only publicly routable unicast. Refused:
 *   this-network 0/8, private 10/8 172.16/12 192.168/16, CGNAT 100.64/10, loopback 127/8 and ::1,
 *   link-local 169.254/16 (cloud metadata 169.254.169.254) and fe80::/10, IETF/benchmark/documentation
 *   ranges, multicast, reserved 240/4 and broadcast, unique-local fc00::/7, and everything outside IPv6
 *   global unicast 2000::/3. IPv4-mapped (::ffff:a.b.c.d) and NAT64 (64:ff9b::/96) addresses are judged
 *   by the IPv4 address they embed.
 * - `allowPrivate` admits loopback only; private networks, link-local and metadata stay refused.
 *
 * Odd IPv4 spellings (`2130706433`, `0x7f.1`, `127.1`, `0177.0.0.1`, `%31%32%37.0.0.1`) are normalised
 * by the WHATWG URL parser to dotted quads before any check, so they are judged as the address they are.
 *
 * The check is only as good as the connection that follows it: the sender must connect to the addresses
 * returned here, not resolve the name again (see attempt.ts, which pins them via a custom `lookup`).
 */
import { promises as dns } from 'node:dns';
import { BlockList, isIP, isIPv4, isIPv6 } from 'node:net';
import { z } from 'zod';

export interface ResolvedAddress {
  address: string;
  family: number;
}

export type HostLookup = (hostname: string) => Promise<ResolvedAddress[]>;

export interface DeliverableUrlOptions {
  allowPrivate: boolean;
  /** Exact origins of internal receivers named by the operator (WEBHOOK_INTERNAL_ORIGINS). */
  internalOrigins?: readonly string[];
  /** DNS resolution; defaults to the system resolver (`dns.lookup`, all addresses). */
  lookup?: HostLookup;
}

export interface DeliverableTarget {
  url: URL;
  /** Every address is allowed; connect only to these. */
  addresses: ResolvedAddress[];
}

export type UnsafeWebhookUrlCode =
  | 'INVALID_URL'
  | 'SCHEME_NOT_ALLOWED'
  | 'CREDENTIALS_IN_URL'
  | 'HOST_NOT_ALLOWED'
  | 'ADDRESS_NOT_ALLOWED'
  | 'UNRESOLVABLE';

export class UnsafeWebhookUrlError extends Error {
  override readonly name = 'UnsafeWebhookUrlError';
  constructor(
    readonly code: UnsafeWebhookUrlCode,
    message: string,
  ) {
    super(message);
  }
}

export const MAX_WEBHOOK_URL_LENGTH = 2048;

const METADATA_HOSTNAMES = new Set([
  'metadata.google.internal',
  'metadata.goog',
  'metadata',
  'instance-data',
  'instance-data.ec2.internal',
  'metadata.azure.internal',
  'metadata.tencentyun.com',
  'metadata.platformequinix.com',
]);

/** Names that only mean something inside a private network (RFC 6762, RFC 8375, common private TLDs). */
const INTERNAL_SUFFIXES = ['local', 'localdomain', 'internal', 'intranet', 'home.arpa', 'lan', 'corp'];

interface AddressRange {
  blockList: BlockList;
  description: string;
  isLoopback: boolean;
}

function range(network: string, prefix: number, description: string, isLoopback = false): AddressRange {
  const blockList = new BlockList();
  blockList.addSubnet(network, prefix, isIPv4(network) ? 'ipv4' : 'ipv6');
  return { blockList, description, isLoopback };
}

/** Most specific first: the first match names the reason. */
const REFUSED_IPV4_RANGES: AddressRange[] = [
  range('169.254.169.254', 32, 'the cloud metadata address'),
  range('255.255.255.255', 32, 'the broadcast address'),
  range('0.0.0.0', 8, 'a "this network" address (0.0.0.0/8)'),
  range('10.0.0.0', 8, 'a private address (10.0.0.0/8)'),
  range('100.64.0.0', 10, 'a carrier-grade NAT address (100.64.0.0/10)'),
  range('127.0.0.0', 8, 'a loopback address (127.0.0.0/8)', true),
  range('169.254.0.0', 16, 'a link-local address (169.254.0.0/16)'),
  range('172.16.0.0', 12, 'a private address (172.16.0.0/12)'),
  range('192.0.0.0', 24, 'an IETF protocol assignment address (192.0.0.0/24)'),
  range('192.0.2.0', 24, 'a documentation address (192.0.2.0/24)'),
  range('192.88.99.0', 24, 'a 6to4 relay anycast address (192.88.99.0/24)'),
  range('192.168.0.0', 16, 'a private address (192.168.0.0/16)'),
  range('198.18.0.0', 15, 'a benchmarking address (198.18.0.0/15)'),
  range('198.51.100.0', 24, 'a documentation address (198.51.100.0/24)'),
  range('203.0.113.0', 24, 'a documentation address (203.0.113.0/24)'),
  range('224.0.0.0', 4, 'a multicast address (224.0.0.0/4)'),
  range('240.0.0.0', 4, 'a reserved address (240.0.0.0/4)'),
];

const IPV6_GLOBAL_UNICAST = range('2000::', 3, 'global unicast');

/** Checked before the global-unicast rule; the ones outside 2000::/3 only give a clearer reason. */
const REFUSED_IPV6_RANGES: AddressRange[] = [
  range('::', 128, 'the unspecified address (::)'),
  range('::1', 128, 'the loopback address (::1)', true),
  range('::', 96, 'an IPv4-compatible IPv6 address (::/96, deprecated)'),
  range('64:ff9b:1::', 48, 'a local-use NAT64 address (64:ff9b:1::/48)'),
  range('100::', 64, 'a discard-only address (100::/64)'),
  range('2001:db8::', 32, 'a documentation address (2001:db8::/32)'),
  range('2001::', 23, 'an IETF protocol assignment address (2001::/23, incl. Teredo)'),
  range('2002::', 16, 'a 6to4 address (2002::/16)'),
  range('3fff::', 20, 'a documentation address (3fff::/20)'),
  range('fc00::', 7, 'a unique-local address (fc00::/7)'),
  range('fe80::', 10, 'a link-local address (fe80::/10)'),
  range('fec0::', 10, 'a site-local address (fec0::/10, deprecated)'),
  range('ff00::', 8, 'a multicast address (ff00::/8)'),
];

export interface AddressVerdict {
  allowed: boolean;
  isLoopback: boolean;
  /** Why it is refused (or what it is), e.g. "a private address (10.0.0.0/8)". */
  description: string;
}

/** Classify one IP address (no DNS). Anything that is not a valid IP address is refused. */
export function classifyAddress(address: string, allowPrivate: boolean): AddressVerdict {
  // A zone id (fe80::1%eth0) only exists on link-local addresses; drop it for the range checks.
  const bare = address.includes('%') ? address.slice(0, address.indexOf('%')) : address;
  if (isIPv4(bare)) return judgeRange(REFUSED_IPV4_RANGES, bare, 'ipv4', allowPrivate, '');
  if (!isIPv6(bare)) return { allowed: false, isLoopback: false, description: 'not an IP address' };

  const embedded = embeddedIPv4(bare);
  if (embedded) {
    const lead = `the ${embedded.kind} form of ${embedded.ipv4}, `;
    return judgeRange(REFUSED_IPV4_RANGES, embedded.ipv4, 'ipv4', allowPrivate, lead);
  }
  const verdict = judgeRange(REFUSED_IPV6_RANGES, bare, 'ipv6', allowPrivate, '');
  if (!verdict.allowed || verdict.isLoopback) return verdict;
  if (!IPV6_GLOBAL_UNICAST.blockList.check(bare, 'ipv6')) {
    return { allowed: false, isLoopback: false, description: 'not a global unicast IPv6 address' };
  }
  return verdict;
}

function judgeRange(
  ranges: AddressRange[],
  address: string,
  family: 'ipv4' | 'ipv6',
  allowPrivate: boolean,
  lead: string,
): AddressVerdict {
  const match = ranges.find((r) => r.blockList.check(address, family));
  if (!match) return { allowed: true, isLoopback: false, description: `${lead}a public address` };
  return {
    allowed: match.isLoopback && allowPrivate,
    isLoopback: match.isLoopback,
    description: `${lead}${match.description}`,
  };
}

/** IPv4 address carried by an IPv4-mapped (::ffff:0:0/96) or NAT64 (64:ff9b::/96) IPv6 address. */
function embeddedIPv4(ipv6: string): { ipv4: string; kind: string } | null {
  const hextets = parseIPv6Hextets(ipv6);
  if (!hextets) return null;
  const firstFiveZero = hextets.slice(0, 5).every((h) => h === 0);
  const isMapped = firstFiveZero && hextets[5] === 0xffff;
  const isNat64 = hextets[0] === 0x64 && hextets[1] === 0xff9b && hextets.slice(2, 6).every((h) => h === 0);
  if (!isMapped && !isNat64) return null;
  const high = hextets[6]!;
  const low = hextets[7]!;
  const ipv4 = [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
  return { ipv4, kind: isMapped ? 'IPv4-mapped' : 'NAT64' };
}

/** Eight 16-bit groups of a valid IPv6 address (zone id already removed). */
function parseIPv6Hextets(address: string): number[] | null {
  let text = address;
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  if (tail.includes('.')) {
    const octets = tail.split('.').map(Number);
    if (octets.length !== 4 || octets.some((o) => !Number.isInteger(o) || o < 0 || o > 255)) return null;
    const [a, b, c, d] = octets as [number, number, number, number];
    text = `${text.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const head = halves[0] ? halves[0].split(':') : [];
  const rest = halves.length === 2 && halves[1] ? halves[1].split(':') : [];
  const groups =
    halves.length === 2
      ? [...head, ...Array<string>(8 - head.length - rest.length).fill('0'), ...rest]
      : head;
  if (groups.length !== 8) return null;
  const hextets = groups.map((g) => parseInt(g, 16));
  return hextets.some((h) => Number.isNaN(h) || h < 0 || h > 0xffff) ? null : hextets;
}

interface PrecheckedUrl {
  url: URL;
  /** Host name without brackets or trailing dot, lower case (the URL parser lower-cases it). */
  host: string;
  /** Set when the host is an IP literal. */
  literal: ResolvedAddress | null;
}

/** Appended when a development receiver (http, localhost, 127.0.0.1, ::1) is refused: names the setting. */
export const LOOPBACK_DEV_HINT =
  ' (for local development set WEBHOOK_ALLOW_PRIVATE=1, as `npm start` does, to allow http and loopback receivers)';

function isLoopbackHost(host: string): boolean {
  const bare = host.startsWith('[') ? host.slice(1, -1) : host;
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true;
  return isIP(bare) !== 0 && classifyAddress(bare, true).isLoopback;
}

/** The checks that need no DNS. Throws UnsafeWebhookUrlError. */
function precheck(
  rawUrl: string,
  allowPrivate: boolean,
  internalOrigins: readonly string[] = [],
): PrecheckedUrl {
  if (rawUrl.length > MAX_WEBHOOK_URL_LENGTH) {
    throw new UnsafeWebhookUrlError('INVALID_URL', `URL is longer than ${MAX_WEBHOOK_URL_LENGTH} characters`);
  }
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new UnsafeWebhookUrlError('INVALID_URL', 'not a valid absolute URL');
  }
  // An origin the operator named (an IP literal and port, checked at config load) is trusted as is,
  // scheme included; no other port or scheme of that host is.
  if (internalOrigins.includes(url.origin) && url.username === '' && url.password === '') {
    const address = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    return { url, host: address, literal: { address, family: isIP(address) } };
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && allowPrivate)) {
    throw new UnsafeWebhookUrlError(
      'SCHEME_NOT_ALLOWED',
      allowPrivate
        ? `scheme ${url.protocol} is not allowed; use https (or http to a loopback address)`
        : `scheme ${url.protocol} is not allowed; use https${url.protocol === 'http:' && isLoopbackHost(url.hostname) ? LOOPBACK_DEV_HINT : ''}`,
    );
  }
  if (url.username !== '' || url.password !== '') {
    throw new UnsafeWebhookUrlError(
      'CREDENTIALS_IN_URL',
      'URLs with credentials (user:pass@) are not allowed',
    );
  }

  const bracketless = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (isIP(bracketless) !== 0) {
    const literal = { address: bracketless, family: isIP(bracketless) };
    assertAddressAllowed(literal.address, allowPrivate, url, `host ${bracketless} is`);
    return { url, host: bracketless, literal };
  }

  const host = bracketless.endsWith('.') ? bracketless.slice(0, -1) : bracketless;
  if (host === '') throw new UnsafeWebhookUrlError('INVALID_URL', 'URL has no host');
  if (METADATA_HOSTNAMES.has(host)) {
    throw new UnsafeWebhookUrlError('HOST_NOT_ALLOWED', `host ${host} is a cloud metadata service`);
  }
  if (host === 'localhost' || host.endsWith('.localhost')) {
    if (!allowPrivate) {
      throw new UnsafeWebhookUrlError('HOST_NOT_ALLOWED', `host ${host} is loopback${LOOPBACK_DEV_HINT}`);
    }
    return { url, host, literal: null };
  }
  if (!host.includes('.')) {
    // Single-label names resolve through local search domains, i.e. to internal hosts.
    throw new UnsafeWebhookUrlError('HOST_NOT_ALLOWED', `host ${host} is not a fully qualified domain name`);
  }
  const internalSuffix = INTERNAL_SUFFIXES.find((suffix) => host.endsWith(`.${suffix}`));
  if (internalSuffix) {
    throw new UnsafeWebhookUrlError(
      'HOST_NOT_ALLOWED',
      `host ${host} is an internal-only name (.${internalSuffix})`,
    );
  }
  return { url, host, literal: null };
}

/** `lead` reads "host 10.0.0.1 is" or "host example.com resolves to 10.0.0.1,". */
function assertAddressAllowed(address: string, allowPrivate: boolean, url: URL, lead: string): void {
  const verdict = classifyAddress(address, allowPrivate);
  if (!verdict.allowed) {
    const hint = !allowPrivate && classifyAddress(address, true).isLoopback ? LOOPBACK_DEV_HINT : '';
    throw new UnsafeWebhookUrlError(
      'ADDRESS_NOT_ALLOWED',
      `${lead} ${verdict.description}; not allowed${hint}`,
    );
  }
  if (url.protocol === 'http:' && !verdict.isLoopback) {
    throw new UnsafeWebhookUrlError(
      'SCHEME_NOT_ALLOWED',
      `${lead} ${verdict.description}; http is only allowed to loopback addresses, use https`,
    );
  }
}

/**
 * Request-validation pre-check (no DNS): scheme, credentials, literal IPs, obvious host names.
 * A URL that passes can still be refused after DNS resolution by `assertDeliverableUrl`.
 */
export function isSyntacticallyDeliverableUrl(url: string, allowPrivate: boolean): boolean {
  return syntacticUrlProblem(url, allowPrivate) === null;
}

/** The reason `isSyntacticallyDeliverableUrl` refuses a URL, or null. */
export function syntacticUrlProblem(
  url: string,
  allowPrivate: boolean,
  internalOrigins: readonly string[] = [],
): string | null {
  try {
    precheck(url, allowPrivate, internalOrigins);
    return null;
  } catch (error) {
    if (error instanceof UnsafeWebhookUrlError) return error.message;
    throw error;
  }
}

/** zod schema for the `url` of a subscription request, with the reason as the issue message. */
export function webhookUrlSchema(allowPrivate: boolean) {
  return z.string().superRefine((value, ctx) => {
    const problem = syntacticUrlProblem(value, allowPrivate);
    if (problem !== null) ctx.addIssue({ code: z.ZodIssueCode.custom, message: problem });
  });
}

const systemLookup: HostLookup = async (hostname) => dns.lookup(hostname, { all: true, verbatim: true });

/**
 * Full check: the pre-check, then DNS resolution, then every resolved address must be allowed. Connect
 * only to the returned addresses (re-resolving reopens the DNS-rebinding window).
 */
export async function assertDeliverableUrl(
  url: string,
  opts: DeliverableUrlOptions,
): Promise<DeliverableTarget> {
  const checked = precheck(url, opts.allowPrivate, opts.internalOrigins);
  if (checked.literal) return { url: checked.url, addresses: [checked.literal] };

  let resolved: ResolvedAddress[];
  try {
    resolved = await (opts.lookup ?? systemLookup)(checked.url.hostname);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    throw new UnsafeWebhookUrlError(
      'UNRESOLVABLE',
      `host ${checked.host} could not be resolved${code ? ` (${code})` : ''}`,
    );
  }
  if (resolved.length === 0) {
    throw new UnsafeWebhookUrlError('UNRESOLVABLE', `host ${checked.host} has no addresses`);
  }
  // Family comes from the address itself, not from what the resolver claims.
  const addresses = resolved.map(({ address }) => ({ address, family: isIP(address) }));
  for (const { address } of addresses) {
    assertAddressAllowed(
      address,
      opts.allowPrivate,
      checked.url,
      `host ${checked.host} resolves to ${address},`,
    );
  }
  return { url: checked.url, addresses };
}

import ipaddr from 'ipaddr.js';

/**
 * Where an address or host name leads, for the HTTP tools' SSRF guard (docs/security.md, "The policy": URLs). Pure
 * functions: no DNS, no sockets. NetGuard (net.ts) resolves names and applies these to every address it would connect
 * to.
 */

export type Ip = ipaddr.IPv4 | ipaddr.IPv6;

export type AddressRule =
  | 'url:public'
  | 'url:loopback'
  | 'url:private'
  | 'url:link-local'
  | 'url:metadata'
  | 'url:cgnat'
  | 'url:multicast'
  | 'url:reserved'
  | 'url:rebinding';

export interface AddressClass {
  rule: AddressRule;
  /** The address that decided, normalised (for an IPv6 form that embeds IPv4, the embedded IPv4 address). */
  address: string;
  /** For a person: "a loopback address (this machine)". */
  what: string;
}

/**
 * Security: cloud metadata services hand out the machine's credentials to anyone who can reach them. AWS/GCP/Azure/
 * OpenStack 169.254.169.254, AWS ECS task credentials 169.254.170.2, AWS DNS 169.254.169.253, Alibaba
 * 100.100.100.200, Azure wireserver 168.63.129.16 (a public-looking address), Oracle's legacy 192.0.0.192, and AWS
 * IMDS over IPv6.
 */
const METADATA_V4 = new Set(['169.254.169.254', '169.254.170.2', '169.254.169.253', '100.100.100.200', '168.63.129.16', '192.0.0.192']);
const METADATA_V6 = new Set(['fd00:ec2::254']);

/** Parses an IP literal (either family, brackets and an IPv6 zone allowed); undefined for anything else. */
export function parseIp(text: string): Ip | undefined {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  if (!ipaddr.isValid(bare)) return undefined;
  const ip = ipaddr.parse(bare);
  // The zone (fe80::1%eth0) says which interface, not where: classify and compare without it.
  return ip.kind() === 'ipv6' ? new ipaddr.IPv6((ip as ipaddr.IPv6).parts) : ip;
}

/** IPv4-mapped IPv6 (::ffff:a.b.c.d) is the IPv4 address on the wire; compare and match it as one. */
export function canonicalIp(ip: Ip): Ip {
  return ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress() ? (ip as ipaddr.IPv6).toIPv4Address() : ip;
}

export function classifyAddress(ip: Ip): AddressClass {
  return ip.kind() === 'ipv4' ? classifyV4(ip as ipaddr.IPv4) : classifyV6(ip as ipaddr.IPv6);
}

/** `form` names an IPv6 form that carries this IPv4 address ("the NAT64 form"). */
function classifyV4(ip: ipaddr.IPv4, form?: string): AddressClass {
  const address = ip.toString();
  const as = (rule: AddressRule, what: string): AddressClass => ({ rule, address, what: form ? `${form} of ${address}, ${what}` : what });
  if (METADATA_V4.has(address)) return as('url:metadata', 'a cloud metadata endpoint, which hands out this machine\'s credentials');
  switch (ip.range() as string) {
    case 'unspecified':
      // Security: connecting to 0.0.0.0 reaches this machine's own services on Linux and macOS.
      return address === '0.0.0.0'
        ? as('url:loopback', 'the unspecified address, which connects to this machine')
        : as('url:reserved', 'in 0.0.0.0/8, which is not a destination');
    case 'loopback':
      return as('url:loopback', 'a loopback address (this machine)');
    case 'private':
      return as('url:private', 'a private network address');
    case 'linkLocal':
      return as('url:link-local', 'a link-local address (169.254.0.0/16)');
    case 'carrierGradeNat':
      return as('url:cgnat', 'a shared carrier-grade NAT address (100.64.0.0/10, also used by VPNs such as Tailscale)');
    case 'multicast':
      return as('url:multicast', 'a multicast address');
    case 'broadcast':
      return as('url:reserved', 'the broadcast address');
    case 'reserved':
      return as('url:reserved', 'a reserved, documentation or benchmarking address');
    default:
      // unicast, and the anycast ranges IANA lists as globally reachable (AS112, AMT).
      return as('url:public', 'a public internet address');
  }
}

function embeddedV4(hi: number, lo: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
}

/** A deprecated form that embeds IPv4: its inner address decides when it is inside, and it is refused otherwise. */
function deprecatedForm(ip: ipaddr.IPv4, form: string): AddressClass {
  const inner = classifyV4(ip, form);
  return inner.rule === 'url:public'
    ? { rule: 'url:reserved', address: inner.address, what: `${form} of ${inner.address}, a deprecated form no internet host uses` }
    : inner;
}

function classifyV6(ip: ipaddr.IPv6): AddressClass {
  const address = ip.toString();
  const p = ip.parts as [number, number, number, number, number, number, number, number];
  const as = (rule: AddressRule, what: string): AddressClass => ({ rule, address, what });
  if (METADATA_V6.has(address)) return as('url:metadata', 'a cloud metadata endpoint, which hands out this machine\'s credentials');
  switch (ip.range() as string) {
    case 'unspecified':
      return as('url:loopback', 'the unspecified address, which connects to this machine');
    case 'loopback':
      return as('url:loopback', 'a loopback address (this machine)');
    // Security: every form that carries an IPv4 address is judged by that address, so ::ffff:127.0.0.1,
    // 64:ff9b::7f00:1 or 2002:7f00:1:: cannot smuggle loopback past an IPv6-only check.
    case 'ipv4Mapped':
      return classifyV4(ip.toIPv4Address(), 'the IPv4-mapped form');
    case 'rfc6145':
      return deprecatedForm(embeddedV4(p[6], p[7]), 'the IPv4-translated form');
    case 'rfc6052':
      // 64:ff9b::/96 is the well-known NAT64 prefix; 64:ff9b:1::/48 is for a site's own translators.
      return p[2] === 0
        ? classifyV4(embeddedV4(p[6], p[7]), 'the NAT64 form')
        : as('url:private', 'a local-use NAT64 address (64:ff9b:1::/48)');
    case '6to4':
      return classifyV4(embeddedV4(p[1], p[2]), 'the 6to4 form');
    case 'teredo':
      return as('url:reserved', 'a Teredo tunnel address');
    case 'linkLocal':
      return as('url:link-local', 'a link-local address (fe80::/10)');
    case 'multicast':
      return as('url:multicast', 'a multicast address');
    case 'uniqueLocal':
      return as('url:private', 'a unique-local address (fc00::/7, the IPv6 private range)');
    case 'deprecatedSiteLocal':
      return as('url:private', 'a site-local address (fec0::/10)');
    case 'as112v6':
    case 'amt':
      return as('url:public', 'a public internet address');
    case 'unicast':
      // Security: ipaddr.js calls IPv4-compatible ::a.b.c.d (the ::/96 gap) plain unicast.
      if (p[0] === 0 && p[1] === 0 && p[2] === 0 && p[3] === 0 && p[4] === 0 && p[5] === 0) {
        return deprecatedForm(embeddedV4(p[6], p[7]), 'the IPv4-compatible form');
      }
      // Only 2000::/3 is allocated for global unicast; anything else is not an internet destination.
      if ((p[0] & 0xe000) !== 0x2000) return as('url:reserved', 'outside the global unicast range 2000::/3');
      return as('url:public', 'a public internet address');
    default:
      return as('url:reserved', 'a reserved, documentation or benchmarking address');
  }
}

/** Lower case, without the final dot of an absolute name ("LocalHost." and "localhost" are one host). */
export function normalizeHostName(name: string): string {
  const lower = name.toLowerCase();
  return lower.endsWith('.') ? lower.slice(0, -1) : lower;
}

const METADATA_NAMES = new Set([
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'instance-data',
  'instance-data.ec2.internal',
  'metadata.tencentyun.com',
]);
/** Names that always mean this machine (RFC 6761), and public domains that answer 127.0.0.1 for every name. */
const LOOPBACK_DOMAINS = [
  'localhost',
  'localhost.localdomain',
  'ip6-localhost',
  'ip6-loopback',
  'localtest.me',
  'lvh.me',
  'vcap.me',
  'lacolhost.com',
  'localho.st',
  'localh.st',
  'fuf.me',
  'spoofed.burpcollaborator.net',
  'mail.ebc.apple.com',
  'bugbounty.dod.network',
];
/** DNS rebinding services: their answers alternate between an outside and an inside address by design. */
const REBINDING_DOMAINS = ['rbndr.us', '1u.ms', 'rebind.it', 'rebind.network', 'lock.cmpxchg8b.com'];
/** Suffixes reserved or conventional for private networks; no public service lives under them. */
const LOCAL_SUFFIXES = ['local', 'localdomain', 'internal', 'lan', 'home.arpa', 'home', 'corp', 'intranet', 'private', 'svc'];
/** Wildcard and rebinding DNS services that answer with an address written in hex inside the name. */
const HEX_ADDRESS_SERVICES = ['nip.io', 'sslip.io', 'xip.io', 'traefik.me', 'backname.io'];

const within = (name: string, domain: string) => name === domain || name.endsWith(`.${domain}`);

export interface NameVerdict {
  rule: AddressRule;
  what: string;
}

/**
 * Judges a host name by itself, before any lookup: metadata names, localhost, local-network suffixes,
 * single-label intranet names, and names that embed an inside address (127.0.0.1.nip.io, 10-0-0-1.sslip.io,
 * 7f000001.rbndr.us). Security: these are refused even when no resolver answers (offline machine, split DNS), and
 * wildcard or rebinding services cannot turn a name that looked public into a loopback connection. `isOpened`
 * says whether an http_allow entry opens an embedded address. Undefined: the name alone says nothing.
 */
export function judgeHostName(name: string, isOpened: (ip: Ip) => boolean): NameVerdict | undefined {
  if (METADATA_NAMES.has(name)) return { rule: 'url:metadata', what: 'a cloud metadata service name, which hands out this machine\'s credentials' };
  if (LOOPBACK_DOMAINS.some((d) => within(name, d))) return { rule: 'url:loopback', what: 'a name that always means this machine' };
  if (REBINDING_DOMAINS.some((d) => within(name, d))) {
    return { rule: 'url:rebinding', what: 'a DNS rebinding service name, whose address switches between lookups to reach inside networks' };
  }
  for (const ip of embeddedAddresses(name)) {
    const cls = classifyAddress(ip);
    if (INSIDE_RULES.has(cls.rule) && !isOpened(ip)) {
      return { rule: cls.rule, what: `a name that embeds ${cls.address} (${cls.what}); wildcard DNS services answer with that address` };
    }
  }
  if (!name.includes('.')) return { rule: 'url:private', what: 'a single-label name, which only a local network resolves' };
  if (LOCAL_SUFFIXES.some((d) => within(name, d))) return { rule: 'url:private', what: 'a local network name' };
  return undefined;
}

/** Embedded addresses are refused only when they point inside; "1.2.3.4.example.com" stays a plain name. */
const INSIDE_RULES = new Set<AddressRule>(['url:loopback', 'url:private', 'url:link-local', 'url:metadata', 'url:cgnat']);

const DECIMAL_LABEL = /^(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;
const DASHED_V4 = /(?<![\d])((?:\d{1,3}-){3}\d{1,3})(?![\d])/g;

/** Addresses written inside a host name: dotted (a.b.c.d.nip.io), dashed (a-b-c-d.sslip.io), hex and dashed IPv6. */
export function embeddedAddresses(name: string): Ip[] {
  const labels = name.split('.');
  const found: Ip[] = [];
  for (let i = 0; i + 4 <= labels.length; i++) {
    const four = labels.slice(i, i + 4);
    if (four.every((l) => DECIMAL_LABEL.test(l))) found.push(new ipaddr.IPv4(four.map(Number)));
  }
  const hexService = HEX_ADDRESS_SERVICES.some((d) => within(name, d));
  for (const label of labels) {
    for (const match of label.matchAll(DASHED_V4)) {
      const parts = match[1]!.split('-');
      if (parts.every((l) => DECIMAL_LABEL.test(l))) found.push(new ipaddr.IPv4(parts.map(Number)));
    }
    if (/^[0-9a-f-]+$/.test(label) && label.includes('--')) {
      const v6 = label.replace(/-/g, ':');
      if (ipaddr.IPv6.isValid(v6)) found.push(ipaddr.IPv6.parse(v6));
    }
    if (hexService) {
      for (const hex of label.match(/(?<![0-9a-f])[0-9a-f]{8}(?![0-9a-f])/g) ?? []) found.push(fromNumber(Number.parseInt(hex, 16)));
    }
  }
  return found;
}

function fromNumber(n: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff]);
}

export type AllowMatch = 'exact' | 'range';

/**
 * The owner's http_allow list: exact host names (case-insensitive, IDNA-normalised), IP addresses and CIDR
 * ranges. Names match the URL's host; addresses and ranges match the address actually connected to, so
 * allowing 127.0.0.2 never opens 127.0.0.1.
 */
export class HostAllowlist {
  readonly #names = new Set<string>();
  readonly #addresses: Ip[] = [];
  readonly #ranges: [Ip, number][] = [];

  constructor(entries: readonly string[]) {
    for (const entry of entries) this.#add(entry);
  }

  get size(): number {
    return this.#names.size + this.#addresses.length + this.#ranges.length;
  }

  #add(raw: string): void {
    const entry = raw.trim();
    const problem = `http_allow entry ${JSON.stringify(raw)} is not a host name, an IP address or a CIDR range (like "127.0.0.2", "10.0.0.0/8" or "nas.example")`;
    if (entry.includes('/')) {
      let cidr: [Ip, number];
      try {
        cidr = ipaddr.parseCIDR(entry);
      } catch {
        throw new Error(problem);
      }
      const [base, bits] = cidr;
      // ::ffff:10.0.0.0/104 is 10.0.0.0/8 on the wire.
      if (base.kind() === 'ipv6' && (base as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96) {
        this.#ranges.push([(base as ipaddr.IPv6).toIPv4Address(), bits - 96]);
      } else this.#ranges.push(cidr);
      return;
    }
    const ip = parseIp(entry);
    if (ip) {
      this.#addresses.push(canonicalIp(ip));
      return;
    }
    let host: string;
    try {
      const url = new URL(`http://${entry}/`);
      if (url.port || url.username || url.password || url.pathname !== '/' || url.search || url.hash) throw new Error('not a bare host');
      host = url.hostname;
    } catch {
      throw new Error(problem);
    }
    const asIp = parseIp(host); // "127.1" or "0x7f.0.0.2" spelled as a host
    if (asIp) this.#addresses.push(canonicalIp(asIp));
    else this.#names.add(normalizeHostName(host));
  }

  /** `name` as normalizeHostName gives it. */
  allowsName(name: string): boolean {
    return this.#names.has(name);
  }

  /** 'exact' when an address entry names it, 'range' when only a CIDR covers it. */
  matchAddress(ip: Ip): AllowMatch | undefined {
    const canonical = canonicalIp(ip);
    const text = canonical.toString();
    if (this.#addresses.some((a) => a.kind() === canonical.kind() && a.toString() === text)) return 'exact';
    for (const [base, bits] of this.#ranges) {
      if (base.kind() === canonical.kind() && canonical.match(base, bits)) return 'range';
    }
    return undefined;
  }
}

import { describe, it, expect } from 'vitest';
import { NetGuard, type Resolver } from '../../../server/security/net.js';
import { classifyAddress, embeddedAddresses, HostAllowlist, parseIp } from '../../../server/security/address.js';

/**
 * Every URL here goes through checkUrl only: nothing connects. Names resolve through an injected table, never
 * through real DNS; public-looking addresses are judged, never contacted.
 */

const DNS: Record<string, string[]> = {
  'example.com': ['93.184.215.14'],
  'www.example.org': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
  'api.github.com': ['140.82.112.6'],
  'xn--e1afmkfd.xn--p1ai': ['93.184.215.14'], // пример.рф
  'xn--bcher-kva.example': ['93.184.215.14'], // bücher.example
  'v6only.example': ['2606:4700::1111'],
  '1.2.3.4.example.com': ['93.184.215.14'],
  'deadbeef.example.com': ['93.184.215.14'],
  'rebind.example': ['127.0.0.1'],
  'loopback6.example': ['::1'],
  'private.example': ['10.1.2.3'],
  'mixed.example': ['93.184.215.14', '10.0.0.1'],
  'mixed6.example': ['2606:4700::1111', '::1'],
  'meta-alias.example': ['169.254.169.254'],
  'mapped.example': ['::ffff:127.0.0.1'],
  'nat64-meta.example': ['64:ff9b::a9fe:a9fe'],
  'cgnat.example': ['100.100.1.1'],
  'linklocal6.example': ['fe80::1'],
  'ula.example': ['fd12:3456::1'],
  'multicast.example': ['239.255.255.250'],
  'zero.example': ['0.0.0.0'],
  'garbage.example': ['not-an-address'],
  'empty.example': [],
  'nas.example': ['192.168.1.20'],
  'nas.example.evil.com': ['192.168.1.21'],
  'stub.example': ['127.0.0.2'],
  'stub-and-loopback.example': ['127.0.0.2', '127.0.0.1'],
  'localhost': ['127.0.0.1', '::1'],
  'metadata.google.internal': ['169.254.169.254'],
};

function tableResolver(calls: string[] = []): Resolver {
  return async (host) => {
    calls.push(host);
    const answer = DNS[host.toLowerCase().replace(/\.$/, '')];
    if (!answer) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return answer.map((address) => ({ address, family: address.includes(':') ? (6 as const) : (4 as const) }));
  };
}

const guard = (allow: string[] = [], calls?: string[]) => new NetGuard({ allow, resolve: tableResolver(calls) });
const STRICT = guard();

/** A refusal must name its rule and tell the user what they can do. */
function expectActionable(reason: string): void {
  expect(reason.length).toBeGreaterThan(20);
  expect(reason).toMatch(/http_allow|instead|starting with https?:\/\/|check the|at most/);
}

async function expectDenied(url: unknown, rule: string, net = STRICT): Promise<string> {
  const verdict = await net.checkUrl(url);
  expect(verdict.decision, `${String(url)} should be denied by ${rule}`).toMatchObject({ decision: 'deny', rule });
  expect(verdict.addresses).toBeUndefined();
  expectActionable(verdict.decision.reason);
  return verdict.decision.reason;
}

async function expectAllowed(url: string, rule: string, net = STRICT): Promise<string[]> {
  const verdict = await net.checkUrl(url);
  expect(verdict.decision, `${url} should be allowed by ${rule}`).toMatchObject({ decision: 'allow', rule });
  expect(verdict.url).toBeInstanceOf(URL);
  return verdict.addresses ?? [];
}

describe('NetGuard.checkUrl: safe controls (an engine that blocks everything fails here)', () => {
  it.each([
    'https://example.com/',
    'http://example.com/path?q=1#frag',
    'https://example.com:8443/api',
    'HTTPS://EXAMPLE.COM./',
    'https://www.example.org/',
    'https://api.github.com/repos/nodejs/node',
    'https://пример.рф/',
    'https://xn--e1afmkfd.xn--p1ai/',
    'https://bücher.example/',
    'https://v6only.example/',
    'http://1.2.3.4.example.com/',
    'http://deadbeef.example.com/',
    'http://example.com#@127.0.0.1/',
    'http://93.184.215.14/',
    'http://1.1.1.1/',
    'http://8.8.8.8:53/',
    'http://[2606:4700::1111]/',
    'http://[2606:4700:4700::1111]:8080/',
    'http://172.15.255.255/',
    'http://172.32.0.1/',
    'http://100.63.255.255/',
    'http://100.128.0.1/',
    'http://126.255.255.255/',
    'http://128.0.0.1/',
    'http://11.0.0.1/',
    'http://9.255.255.255/',
    'http://192.167.255.255/',
    'http://192.169.0.1/',
    'http://169.253.255.255/',
    'http://169.255.0.1/',
    'http://198.17.255.255/',
    'http://198.20.0.1/',
    'http://223.255.255.255/',
    'http://[::ffff:93.184.215.14]/',
    'http://[64:ff9b::5db8:d70e]/',
    'http://[2002:5db8:d70e::1]/',
  ])('allows %s as a public destination', async (url) => {
    const addresses = await expectAllowed(url, 'url:public');
    expect(addresses.length).toBeGreaterThan(0);
  });
});

describe('NetGuard.checkUrl: loopback in every spelling', () => {
  it.each([
    'http://127.0.0.1/',
    'http://127.0.0.1:7800/tools',
    'https://127.0.0.1/',
    'http://localhost/',
    'http://LOCALHOST/',
    'http://localhost./',
    'http://localhost:8080/admin',
    'http://api.localhost/',
    'http://localhost.localdomain/',
    'http://ⓛⓞⓒⓐⓛⓗⓞⓢⓣ/',
    'http://127.1/',
    'http://127.0.1/',
    'http://0x7f.1/',
    'http://0x7f000001/',
    'http://0x7F.0x0.0x0.0x1/',
    'http://2130706433/',
    'http://017700000001/',
    'http://0177.0.0.1/',
    'http://0177.0000.0000.0001/',
    'http://127.000.000.001/',
    'http://127.0.0.1./',
    'http://%31%32%37.0.0.1/',
    'http://%31%32%37%2e0%2e0%2e1/',
    'http://127。0。0。1/',
    'http://127．0．0．1/',
    'http://①②⑦.0.0.1/',
    'http://１２７.０.０.１/',
    'http://127.255.255.254/',
    'http://127.0.0.1#@example.com/',
    'http://[::1]/',
    'http://[0:0:0:0:0:0:0:1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:7f00:1]/',
    'http://[0:0:0:0:0:ffff:127.0.0.1]/',
    'http://[::127.0.0.1]/',
    'http://[::7f00:1]/',
    'http://[64:ff9b::7f00:1]/',
    'http://[64:ff9b::127.0.0.1]/',
    'http://[2002:7f00:1::]/',
    'http://[2002:7f00:0001:0:0:0:0:1]/',
    'http://[::ffff:0:7f00:1]/',
    'http://0.0.0.0/',
    'http://0/',
    'http://0:8080/',
    'http://[::]/',
    'http://[0:0:0:0:0:0:0:0]/',
    'http://[::ffff:0.0.0.0]/',
    'http://rebind.example/',
    'http://loopback6.example/',
    'http://mapped.example/',
    'http://mixed6.example/',
    'http://zero.example/',
    'http://127.0.0.1.nip.io/',
    'http://app.127.0.0.1.nip.io/',
    'http://127-0-0-1.sslip.io/',
    'http://www-127-0-0-1.sslip.io/',
    'http://7f000001.nip.io/',
    'http://magic-7f000001.nip.io/',
    'http://127.0.0.1.xip.io/',
    'http://spoofed.burpcollaborator.net/',
    'http://localh.st/',
    'http://--1.sslip.io/',
    'http://localtest.me/',
    'http://app.lvh.me/',
  ])('denies %s', async (url) => {
    await expectDenied(url, 'url:loopback');
  });
});

describe('NetGuard.checkUrl: private networks', () => {
  it.each([
    'http://10.0.0.1/',
    'http://10.255.255.255/',
    'http://0xa.1/',
    'http://167772161/',
    'http://172.16.5.4/',
    'http://172.31.255.255/',
    'http://172.16.0.0/',
    'http://192.168.1.1/',
    'http://192.168.0.1:8443/',
    'http://0xc0.0xa8.1.1/',
    'http://[::ffff:10.0.0.1]/',
    'http://[::ffff:192.168.1.1]/',
    'http://[::10.0.0.1]/',
    'http://[2002:c0a8:101::1]/',
    'http://[fc00::1]/',
    'http://[fd12::1]/',
    'http://[fdff:ffff::1]/',
    'http://[fec0::1]/',
    'http://[64:ff9b:1::a00:1]/',
    'http://private.example/',
    'http://mixed.example/',
    'http://ula.example/',
    'http://nas.example/',
    'http://intranet/',
    'http://router/',
    'http://printer.local/',
    'http://db.internal/',
    'http://kubernetes.default.svc/',
    'http://router.lan/',
    'http://nas.home.arpa/',
    'http://10.0.0.1.nip.io/',
    'http://192-168-1-1.sslip.io/',
    'http://fd00--1.sslip.io/',
  ])('denies %s', async (url) => {
    await expectDenied(url, 'url:private');
  });
});

describe('NetGuard.checkUrl: link-local, cloud metadata, CGNAT, multicast and reserved ranges', () => {
  it.each([
    ['http://169.254.1.1/', 'url:link-local'],
    ['http://169.254.0.0/', 'url:link-local'],
    ['http://[fe80::1]/', 'url:link-local'],
    ['http://[febf::1]/', 'url:link-local'],
    ['http://[::ffff:169.254.1.1]/', 'url:link-local'],
    ['http://linklocal6.example/', 'url:link-local'],
    ['http://169.254.169.254/latest/meta-data/iam/security-credentials/', 'url:metadata'],
    ['http://169.254.169.254/computeMetadata/v1/', 'url:metadata'],
    ['http://0xa9fea9fe/', 'url:metadata'],
    ['http://2852039166/', 'url:metadata'],
    ['http://0251.0376.0251.0376/', 'url:metadata'],
    ['http://169.254.43518/', 'url:metadata'],
    ['http://[::ffff:169.254.169.254]/', 'url:metadata'],
    ['http://[0:0:0:0:0:ffff:169.254.169.254]/', 'url:metadata'],
    ['http://[::ffff:a9fe:a9fe]/', 'url:metadata'],
    ['http://[64:ff9b::a9fe:a9fe]/', 'url:metadata'],
    ['http://[2002:a9fe:a9fe::]/', 'url:metadata'],
    ['http://[fd00:ec2::254]/latest/meta-data/', 'url:metadata'],
    ['http://169.254.170.2/v2/credentials', 'url:metadata'],
    ['http://100.100.100.200/latest/meta-data/', 'url:metadata'],
    ['http://168.63.129.16/machine', 'url:metadata'],
    ['http://metadata.google.internal/computeMetadata/v1/', 'url:metadata'],
    ['http://METADATA.GOOGLE.INTERNAL./', 'url:metadata'],
    ['http://metadata/', 'url:metadata'],
    ['http://metadata.goog/', 'url:metadata'],
    ['http://instance-data/latest/', 'url:metadata'],
    ['http://instance-data.ec2.internal/', 'url:metadata'],
    ['http://meta-alias.example/', 'url:metadata'],
    ['http://nat64-meta.example/', 'url:metadata'],
    ['http://169.254.169.254.nip.io/', 'url:metadata'],
    ['http://7f000001.c0a80001.rbndr.us/', 'url:rebinding'],
    ['http://make-127.0.0.1-rebind-169.254-169.254-rr.1u.ms/', 'url:rebinding'],
    ['http://⑯⑨。②⑤④。⑯⑨｡②⑤④/', 'url:metadata'],
    ['http://100.64.0.1/', 'url:cgnat'],
    ['http://100.127.255.255/', 'url:cgnat'],
    ['http://[::ffff:100.64.0.1]/', 'url:cgnat'],
    ['http://cgnat.example/', 'url:cgnat'],
    ['http://100-64-0-1.sslip.io/', 'url:cgnat'],
    ['http://224.0.0.1/', 'url:multicast'],
    ['http://239.255.255.250:1900/', 'url:multicast'],
    ['http://[ff02::1]/', 'url:multicast'],
    ['http://[ff05::1:3]/', 'url:multicast'],
    ['http://multicast.example/', 'url:multicast'],
    ['http://255.255.255.255/', 'url:reserved'],
    ['http://198.18.0.1/', 'url:reserved'],
    ['http://198.19.255.255/', 'url:reserved'],
    ['http://240.0.0.1/', 'url:reserved'],
    ['http://192.0.2.1/', 'url:reserved'],
    ['http://198.51.100.7/', 'url:reserved'],
    ['http://203.0.113.9/', 'url:reserved'],
    ['http://192.0.0.8/', 'url:reserved'],
    ['http://0.1.2.3/', 'url:reserved'],
    ['http://[2001:db8::1]/', 'url:reserved'],
    ['http://[100::1]/', 'url:reserved'],
    ['http://[2001::1]/', 'url:reserved'],
    ['http://[2001:2::1]/', 'url:reserved'],
    ['http://[4000::1]/', 'url:reserved'],
    ['http://[::93.184.215.14]/', 'url:reserved'],
    ['http://[::ffff:0:5db8:d70e]/', 'url:reserved'],
  ])('denies %s (%s)', async (url, rule) => {
    await expectDenied(url, rule);
  });
});

describe('NetGuard.checkUrl: schemes, credentials and malformed input', () => {
  it.each([
    'file:///etc/passwd',
    'file://localhost/etc/passwd',
    'ftp://example.com/pub/file',
    'gopher://127.0.0.1:70/_GET',
    'dict://127.0.0.1:11211/stat',
    'ldap://127.0.0.1/',
    'ws://example.com/socket',
    'wss://example.com/socket',
    'javascript:alert(1)',
    'data:text/plain,hello',
    'view-source:http://example.com/',
    'jar:http://example.com/a.jar!/',
    'ssh://example.com/',
    'blob:http://example.com/uuid',
  ])('denies the scheme of %s', async (url) => {
    await expectDenied(url, 'url:scheme');
  });

  it.each([
    'http://alice:hunter2@example.com/',
    'http://alice@example.com/',
    'https://:hunter2@example.com/',
    'http://example.com@127.0.0.1/',
    'http://example.com:hunter2@169.254.169.254/',
  ])('denies credentials in %s without repeating them', async (url) => {
    const reason = await expectDenied(url, 'url:credentials');
    expect(reason).not.toContain('hunter2');
    expect(reason).not.toContain('alice');
  });

  it.each([[''], ['   '], ['not a url'], ['http://'], ['http://exa mple.com/'], ['http://[::1/'], ['http://256.256.256.256/'], ['//example.com/'], ['/etc/passwd'], [42], [null], [{}], ['http://' + 'a'.repeat(9000) + '.com/']])(
    'denies %j as an invalid URL',
    async (url) => {
      await expectDenied(url, 'url:invalid');
    },
  );
});

describe('NetGuard.checkUrl: names that do not resolve', () => {
  it('lets an unknown public-looking name through to be checked again at connect time, with no addresses', async () => {
    const verdict = await STRICT.checkUrl('https://unknown.example/page');
    expect(verdict.decision).toMatchObject({ decision: 'allow', rule: 'url:unresolved' });
    expect(verdict.addresses).toEqual([]);
  });

  it('treats an empty answer like no answer', async () => {
    const verdict = await STRICT.checkUrl('https://empty.example/');
    expect(verdict.decision.rule).toBe('url:unresolved');
    expect(verdict.addresses).toEqual([]);
  });

  it('denies a lookup that answers something that is not an address', async () => {
    await expectDenied('http://garbage.example/', 'url:unresolvable');
  });

  it('gives up on a resolver that hangs', async () => {
    const net = new NetGuard({ allow: [], resolve: () => new Promise(() => {}), resolveTimeoutMs: 50 });
    const verdict = await net.checkUrl('https://slow.example/');
    expect(verdict.decision.rule).toBe('url:unresolved');
    expect(verdict.addresses).toEqual([]);
  });
});

describe('NetGuard.checkUrl: the http_allow list', () => {
  it('opens 127.0.0.2 while 127.0.0.1 and 127.0.0.3 stay denied', async () => {
    const net = guard(['127.0.0.2']);
    expect(await expectAllowed('http://127.0.0.2:8080/', 'url:allowlisted', net)).toEqual(['127.0.0.2']);
    await expectAllowed('http://[::ffff:127.0.0.2]/', 'url:allowlisted', net);
    await expectAllowed('http://stub.example/', 'url:allowlisted', net);
    await expectDenied('http://127.0.0.1/', 'url:loopback', net);
    await expectDenied('http://127.0.0.3/', 'url:loopback', net);
    await expectDenied('http://localhost/', 'url:loopback', net);
    await expectDenied('http://rebind.example/', 'url:loopback', net);
  });

  it('denies a name when any one of its addresses is not opened', async () => {
    await expectDenied('http://stub-and-loopback.example/', 'url:loopback', guard(['127.0.0.2']));
  });

  it.each([
    ['http://127.0.0.0/', true],
    ['http://127.0.0.1/', true],
    ['http://127.0.0.2/', true],
    ['http://127.0.0.3/', true],
    ['http://127.0.0.4/', false],
    ['http://127.0.0.255/', false],
  ])('CIDR 127.0.0.0/30 boundary: %s opened = %s', async (url, opened) => {
    const net = guard(['127.0.0.0/30']);
    if (opened) await expectAllowed(url, 'url:allowlisted', net);
    else await expectDenied(url, 'url:loopback', net);
  });

  it('matches host-name entries case-insensitively, IDNA-normalised, with or without the final dot', async () => {
    const net = guard(['NAS.Example', 'bücher.example.']);
    await expectAllowed('http://nas.example/', 'url:allowlisted', net);
    await expectAllowed('http://NAS.EXAMPLE./', 'url:allowlisted', net);
    await expectAllowed('http://xn--bcher-kva.example/', 'url:allowlisted', net);
    await expectDenied('http://nas.example.evil.com/', 'url:private', net);
    await expectDenied('http://private.example/', 'url:private', net);
  });

  it('opens a name entry for localhost without opening other loopback names', async () => {
    const net = guard(['localhost']);
    await expectAllowed('http://localhost:8080/', 'url:allowlisted', net);
    await expectDenied('http://127.0.0.1:8080/', 'url:loopback', net);
    await expectDenied('http://rebind.example/', 'url:loopback', net);
  });

  it('never opens a metadata address through a range or a trusted name, only through its exact address', async () => {
    await expectAllowed('http://169.254.1.1/', 'url:allowlisted', guard(['169.254.0.0/16']));
    await expectDenied('http://169.254.169.254/', 'url:metadata', guard(['169.254.0.0/16']));
    await expectDenied('http://169.254.169.254/', 'url:metadata', guard(['0.0.0.0/0']));
    await expectDenied('http://meta-alias.example/', 'url:metadata', guard(['meta-alias.example']));
    await expectAllowed('http://169.254.169.254/', 'url:allowlisted', guard(['169.254.169.254']));
    await expectDenied('http://metadata.google.internal/', 'url:metadata', guard(['169.254.169.254']));
    await expectAllowed('http://metadata.google.internal/', 'url:allowlisted', guard(['169.254.169.254', 'metadata.google.internal']));
  });

  it('opens IPv6 ranges and mapped forms of IPv4 entries', async () => {
    await expectAllowed('http://[fd12::1]/', 'url:allowlisted', guard(['fd00::/8']));
    await expectDenied('http://[fe80::1]/', 'url:link-local', guard(['fd00::/8']));
    await expectAllowed('http://10.1.2.3/', 'url:allowlisted', guard(['::ffff:10.0.0.0/104']));
    await expectDenied('http://172.16.0.1/', 'url:private', guard(['10.0.0.0/8']));
  });

  it('lets an embedded address in a name through the name check when it is opened', async () => {
    const verdict = await guard(['127.0.0.2']).checkUrl('http://127.0.0.2.nip.io/');
    expect(verdict.decision.rule).toBe('url:unresolved');
  });

  it.each(['http://example.com', '10.0.0.0/33', 'nas.example:8080', 'a b', 'example.com/path', '999.1.1.1/8'])(
    'refuses the malformed entry %j when the guard is built',
    (entry) => {
      expect(() => new NetGuard({ allow: [entry] })).toThrow(/http_allow entry/);
    },
  );
});

describe('NetGuard.checkUrl: the gateway itself', () => {
  it('refuses the gateway\'s own port even when loopback is opened, and only there', async () => {
    const net = new NetGuard({ allow: ['127.0.0.0/8', 'localhost'], resolve: tableResolver(), selfPort: 7800 });
    await expectDenied('http://127.0.0.1:7800/calls', 'url:self', net);
    await expectDenied('http://localhost:7800/', 'url:self', net);
    await expectAllowed('http://127.0.0.1:7801/', 'url:allowlisted', net);
    await expectAllowed('http://example.com:7800/', 'url:public', net);
  });

  it('reads the port late, once the gateway listens', async () => {
    let port: number | undefined;
    const net = new NetGuard({ allow: ['127.0.0.2'], resolve: tableResolver(), selfPort: () => port });
    await expectAllowed('http://127.0.0.2:4100/', 'url:allowlisted', net);
    port = 4100;
    await expectDenied('http://127.0.0.2:4100/', 'url:self', net);
  });
});

describe('NetGuard.checkUrl: what it resolves', () => {
  it('never looks up an IP literal', async () => {
    const calls: string[] = [];
    const net = guard([], calls);
    await net.checkUrl('http://127.0.0.1/');
    await net.checkUrl('http://[::1]/');
    await net.checkUrl('http://93.184.215.14/');
    expect(calls).toEqual([]);
  });

  it('refuses names judged by themselves before any lookup', async () => {
    const calls: string[] = [];
    const net = guard([], calls);
    for (const url of ['http://localhost/', 'http://metadata.google.internal/', 'http://127.0.0.1.nip.io/', 'http://printer.local/']) {
      expect((await net.checkUrl(url)).decision.decision).toBe('deny');
    }
    expect(calls).toEqual([]);
  });

  it('returns every checked address, in the resolver order, for the connection to be pinned to', async () => {
    const verdict = await STRICT.checkUrl('https://www.example.org/');
    expect(verdict.addresses).toEqual(['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c']);
  });
});

describe('address classification', () => {
  it.each([
    ['127.0.0.1', 'url:loopback', '127.0.0.1'],
    ['::ffff:7f00:1', 'url:loopback', '127.0.0.1'],
    ['::7f00:1', 'url:loopback', '127.0.0.1'],
    ['64:ff9b::a00:1', 'url:private', '10.0.0.1'],
    ['2002:a9fe:a9fe::', 'url:metadata', '169.254.169.254'],
    ['2606:4700::1111', 'url:public', '2606:4700::1111'],
    ['fe80::1%eth0', 'url:link-local', 'fe80::1'],
    ['192.31.196.1', 'url:public', '192.31.196.1'],
  ])('%s is %s (decided by %s)', (text, rule, address) => {
    const ip = parseIp(text);
    expect(ip).toBeDefined();
    expect(classifyAddress(ip!)).toMatchObject({ rule, address });
  });

  it('finds addresses written inside names, and only hex ones under wildcard DNS services', () => {
    const found = (name: string) => embeddedAddresses(name).map((ip) => ip.toString());
    expect(found('a.10.0.0.1.nip.io')).toEqual(['10.0.0.1']);
    expect(found('x-192-168-0-1-y.sslip.io')).toEqual(['192.168.0.1']);
    expect(found('7f000001.nip.io')).toEqual(['127.0.0.1']);
    expect(found('7f000001.example.com')).toEqual([]);
    expect(found('xn--e1afmkfd.xn--p1ai')).toEqual([]);
  });

  it('HostAllowlist answers exact for address entries and range for CIDR entries', () => {
    const list = new HostAllowlist(['127.0.0.2', '10.0.0.0/8']);
    expect(list.matchAddress(parseIp('127.0.0.2')!)).toBe('exact');
    expect(list.matchAddress(parseIp('::ffff:127.0.0.2')!)).toBe('exact');
    expect(list.matchAddress(parseIp('10.9.9.9')!)).toBe('range');
    expect(list.matchAddress(parseIp('127.0.0.1')!)).toBeUndefined();
  });
});

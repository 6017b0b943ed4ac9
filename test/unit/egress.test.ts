// The SSRF guard of outgoing webhook callbacks (src/infra/http-egress): the address classifier for
// every refused range, and the client against local receivers (no network beyond 127.0.0.1):
// scheme rule, resolve-then-check, pinning to the checked address with the original Host, no
// redirects, the deadline, and failures as values.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { normalizeHost, parseHostList } from '../../src/domain/urls.rules.js';
import { allowHostSet, classifyAddress, egressTarget, isAllowedAddress, isAllowedAnswer, type AddressClass } from '../../src/domain/egress-policy.rules.js';
import { createEgressClient, type Resolver } from '../../src/infra/http-egress/egress-client.js';
import { createNudgeEgressClient } from '../../src/infra/chat/nudge-egress.js';

describe('classifyAddress', () => {
  const cases: Array<[string, AddressClass]> = [
    // IPv4
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'reserved'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.5', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['172.15.255.255', 'public'],
    ['172.32.0.0', 'public'],
    ['192.168.1.1', 'private'],
    ['192.169.0.1', 'public'],
    ['169.254.0.1', 'link_local'],
    ['169.254.169.254', 'metadata'],
    ['169.254.170.2', 'metadata'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.255', 'cgnat'],
    ['100.100.100.200', 'metadata'],
    ['100.63.255.255', 'public'],
    ['100.128.0.0', 'public'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'reserved'],
    ['192.0.0.170', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['192.0.2.1', 'reserved'],
    ['8.8.8.8', 'public'],
    ['93.184.216.34', 'public'],
    // IPv6
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['fc00::1', 'private'],
    ['fd12:3456:789a::1', 'private'],
    ['fd00:ec2::254', 'metadata'],
    ['fe80::1', 'link_local'],
    ['fe80::1%eth0', 'link_local'],
    ['febf::1', 'link_local'],
    ['fec0::1', 'private'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'reserved'],
    ['2001:0:4136:e378::1', 'reserved'],
    ['100::1', 'reserved'],
    ['2606:4700:4700::1111', 'public'],
    ['2a00:1450:4001:80b::200e', 'public'],
    // IPv4-mapped, IPv4-compatible, NAT64 and 6to4 carry an IPv4 address: classified as that address.
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.1.2.3', 'private'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['::ffff:100.64.1.1', 'cgnat'],
    ['::ffff:0.0.0.0', 'unspecified'],
    ['::ffff:8.8.8.8', 'public'],
    ['::127.0.0.1', 'loopback'],
    ['64:ff9b::10.0.0.1', 'private'],
    ['64:ff9b::8.8.8.8', 'public'],
    ['64:ff9b:1::1', 'private'],
    ['2002:c0a8:0101::1', 'private'],
    ['2002:0808:0808::1', 'public'],
    ['[::1]', 'loopback'],
    // IPv4-translated ::ffff:0:0:0/96 (SIIT, RFC 6145): the reproduction, classed public before.
    ['::ffff:0:7f00:1', 'loopback'],
    ['::ffff:0:127.0.0.1', 'loopback'],
    ['::ffff:0:a00:1', 'private'],
    ['::ffff:0:a9fe:a9fe', 'metadata'],
    ['::ffff:0:808:808', 'public'],
    // IPv4-mapped in hex and IPv4-compatible in hex (ipaddr.js alone calls ::7f00:1 unicast).
    ['::ffff:a9fe:a9fe', 'metadata'],
    ['::ffff:c0a8:1', 'private'],
    ['::7f00:1', 'loopback'],
    ['::a00:1', 'private'],
    ['::808:808', 'public'],
    ['::2', 'reserved'],
    // NAT64 well-known prefix in hex; local-use NAT64 never public.
    ['64:ff9b::7f00:1', 'loopback'],
    ['64:ff9b::a9fe:a9fe', 'metadata'],
    ['64:ff9b::c0a8:101', 'private'],
    ['64:ff9b:1:2::8.8.8.8', 'private'],
    // 6to4 embedding private, loopback, CGNAT, metadata and public IPv4.
    ['2002:7f00:1::1', 'loopback'],
    ['2002:a00:1::', 'private'],
    ['2002:ac10:1::1', 'private'],
    ['2002:6440:1::1', 'cgnat'],
    ['2002:a9fe:a9fe::1', 'metadata'],
    ['2002:a9fe:1::1', 'link_local'],
    // Teredo: tunnels to an IPv4 of the sender's choosing, whatever its obfuscated client part.
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'reserved'],
    ['2001::7f00:1', 'reserved'],
    // Link-local, ULA, site-local, multicast scopes.
    ['fe80::a:b:c:d', 'link_local'],
    ['fd00:ec2::253', 'private'],
    ['fdff:ffff::1', 'private'],
    ['ff05::2', 'multicast'],
    ['ff0e::1', 'multicast'],
    // Unspecified / loopback written out; metadata written out.
    ['0:0:0:0:0:0:0:0', 'unspecified'],
    ['0000:0000:0000:0000:0000:0000:0000:0001', 'loopback'],
    ['FD00:EC2:0:0:0:0:0:254', 'metadata'],
    // Carrier-grade NAT edges, benchmarking (v4 and v6), other special-purpose ranges.
    ['100.64.0.0', 'cgnat'],
    ['198.19.255.255', 'reserved'],
    ['198.17.255.255', 'public'],
    ['198.20.0.0', 'public'],
    ['2001:2::1', 'reserved'],
    ['192.88.99.1', 'reserved'],
    ['198.51.100.7', 'reserved'],
    ['203.0.113.9', 'reserved'],
    ['2001:10::1', 'reserved'],
    ['2001:20::1', 'reserved'],
    ['3fff::1', 'reserved'],
    ['5f00::1', 'reserved'],
    ['100::', 'reserved'],
    // Outside global unicast 2000::/3 (unassigned): default deny.
    ['4000::1', 'reserved'],
    ['1234::1', 'reserved'],
    // Not addresses at all (lenient forms a resolver never returns and a URL never keeps).
    ['localhost', 'invalid'],
    ['10.0.0', 'invalid'],
    ['127.1', 'invalid'],
    ['0x7f.0.0.1', 'invalid'],
    ['0177.0.0.1', 'invalid'],
    ['2130706433', 'invalid'],
    ['::ffff:127.0.0.1:80', 'invalid'],
    ['[::1', 'invalid'],
    ['', 'invalid'],
  ];
  it.each(cases)('%s is %s', (address, expected) => {
    expect(classifyAddress(address)).toBe(expected);
  });

  it('only public addresses are allowed; an allowlisted host may add private ones, never metadata, multicast or unspecified', () => {
    expect(isAllowedAddress('8.8.8.8')).toBe(true);
    for (const a of ['127.0.0.1', '10.0.0.1', '169.254.1.1', '100.64.0.1', '::1', 'fd00::1', '::ffff:192.168.0.1']) {
      expect(isAllowedAddress(a)).toBe(false);
      expect(isAllowedAddress(a, true)).toBe(true);
    }
    for (const a of ['169.254.169.254', 'fd00:ec2::254', '0.0.0.0', '::', '224.0.0.1', 'ff02::1', 'nonsense']) {
      expect(isAllowedAddress(a)).toBe(false);
      expect(isAllowedAddress(a, true)).toBe(false);
    }
  });
});

describe('one DNS answer, one verdict (isAllowedAnswer)', () => {
  it('refuses an empty answer and any answer with one non-public address', () => {
    expect(isAllowedAnswer([], false)).toBe(false);
    expect(isAllowedAnswer([{ address: '8.8.8.8' }, { address: '2606:4700:4700::1111' }], false)).toBe(true);
    expect(isAllowedAnswer([{ address: '8.8.8.8' }, { address: '::ffff:0:7f00:1' }], false)).toBe(false);
    expect(isAllowedAnswer([{ address: '127.0.0.1' }], true)).toBe(true);
    expect(isAllowedAnswer([{ address: '127.0.0.1' }, { address: '169.254.169.254' }], true)).toBe(false);
  });
});

describe('allowlist normalisation (EGRESS_ALLOW_HOSTS and NUDGE_EGRESS_ALLOW_HOSTS alike)', () => {
  it.each([
    ['Receiver.Test', 'receiver.test'],
    [' receiver.test. ', 'receiver.test'],
    ['receiver.test:8443', 'receiver.test'],
    ['RECEIVER.TEST.:80', 'receiver.test'],
    ['127.0.0.1', '127.0.0.1'],
    ['127.0.0.1:9000', '127.0.0.1'],
    ['[::1]', '::1'],
    ['[::1]:8080', '::1'],
    ['::1', '::1'],
    ['0:0:0:0:0:0:0:1', '::1'],
    ['[FD00::0001]', 'fd00::1'],
    ['::ffff:127.0.0.1', '::ffff:7f00:1'],
    ['bücher.example', 'xn--bcher-kva.example'],
  ])('%j -> %j', (entry, host) => {
    expect(normalizeHost(entry)).toBe(host);
  });

  it('both variables are read with the same normalisation, empty entries dropped', () => {
    const raw = ' 127.0.0.1:8080, Receiver.Test. ,[::1],, [0:0::1]:443 ';
    const want = ['127.0.0.1', 'receiver.test', '::1', '::1'];
    const c = loadConfig({ EGRESS_ALLOW_HOSTS: raw, NUDGE_EGRESS_ALLOW_HOSTS: raw });
    expect(c.egressAllowHosts).toEqual(want);
    expect(c.nudges.egressAllowHosts).toEqual(want);
    expect(parseHostList(raw)).toEqual(want);
    expect(loadConfig({}).nudges.egressAllowHosts).toEqual([]);
  });

  it('an entry matches the URL host however either is written', () => {
    const allow = allowHostSet(['RECEIVER.test.:8080', '[::1]', '127.0.0.1']);
    expect(egressTarget('http://receiver.test:9000/x', allow)?.allowlisted).toBe(true);
    expect(egressTarget('http://Receiver.Test./x', allow)?.allowlisted).toBe(true);
    expect(egressTarget('http://[0:0::1]:9/x', allow)).toMatchObject({ host: '::1', allowlisted: true, literal: 6 });
    expect(egressTarget('http://127.1/x', allow)).toMatchObject({ host: '127.0.0.1', allowlisted: true, literal: 4 });
    expect(egressTarget('http://other.test/x', allow)).toBeNull();
    expect(egressTarget('https://other.test/x', allow)).toMatchObject({ host: 'other.test', allowlisted: false, literal: 0 });
  });

  it('the shared target rule: https only unless allowlisted; IP literals checked up front, metadata never', () => {
    const none = allowHostSet([]);
    expect(egressTarget('not a url', none)).toBeNull();
    expect(egressTarget('ftp://example.test/', none)).toBeNull();
    expect(egressTarget('https://[::ffff:0:7f00:1]/cb', none)).toBeNull();
    expect(egressTarget('https://[64:ff9b::a9fe:a9fe]/cb', none)).toBeNull();
    expect(egressTarget('https://[2002:a00:1::1]/cb', none)).toBeNull();
    expect(egressTarget('https://0x7f000001/cb', none)).toBeNull(); // the URL parser makes it 127.0.0.1
    expect(egressTarget('https://8.8.8.8/cb', none)).toMatchObject({ literal: 4, allowlisted: false });
    expect(egressTarget('http://169.254.169.254/', allowHostSet(['169.254.169.254']))).toBeNull();
  });
});

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

describe('createEgressClient', () => {
  let server: http.Server;
  let port: number;
  let connections = 0;
  const seen: Seen[] = [];

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        seen.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks) });
        if (req.url === '/hang') return; // never answers
        if (req.url === '/teapot') return void res.writeHead(418).end('short and stout');
        if (req.url === '/redirect') return void res.writeHead(302, { location: 'http://10.0.0.1/steal' }).end();
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      });
    });
    server.on('connection', () => connections++);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });

  const body = Buffer.from('{"a":1}', 'utf8');
  /** Runs `fn` and reports how many connections the local receiver saw meanwhile. */
  async function countingConnections<T>(fn: () => Promise<T>): Promise<{ result: T; opened: number }> {
    const before = connections;
    const result = await fn();
    await new Promise((r) => setTimeout(r, 50));
    return { result, opened: connections - before };
  }

  it('plain http to a host that is not allowlisted is refused before any connection', async () => {
    const { result, opened } = await countingConnections(() => createEgressClient({ allowHosts: [] }).post(`http://127.0.0.1:${port}/ok`, body, {}));
    expect(result).toEqual({ status: 0, ok: false, error: 'blocked_target' });
    expect(opened).toBe(0);
  });

  it('https to a loopback literal or a name resolving to loopback is refused before any connection', async () => {
    const resolve: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];
    // Numeric and hex IPv4 spellings are normalised by the URL parser before the check.
    const urls = [
      `https://127.0.0.1:${port}/ok`,
      `https://2130706433:${port}/ok`,
      `https://0x7f.0.0.1:${port}/ok`,
      `https://[::ffff:127.0.0.1]:${port}/ok`,
      `https://[::1]:${port}/ok`,
      `https://internal.example.test:${port}/ok`,
    ];
    for (const url of urls) {
      const { result, opened } = await countingConnections(() => createEgressClient({ allowHosts: [], resolve }).post(url, body, {}));
      expect(result, url).toEqual({ status: 0, ok: false, error: 'blocked_target' });
      expect(opened).toBe(0);
    }
  });

  it('a name with any private, metadata or mapped-private answer is refused (mixed answers too)', async () => {
    const answers: Array<Array<{ address: string; family: number }>> = [
      [{ address: '10.0.0.5', family: 4 }],
      [
        { address: '93.184.216.34', family: 4 },
        { address: '192.168.0.10', family: 4 },
      ],
      [{ address: '169.254.169.254', family: 4 }],
      [{ address: '::ffff:172.16.0.1', family: 6 }],
      [{ address: 'fd00:ec2::254', family: 6 }],
      [{ address: '100.64.0.1', family: 4 }],
      [{ address: 'fe80::1', family: 6 }],
      [{ address: '0.0.0.0', family: 4 }],
      [{ address: '224.0.0.1', family: 4 }],
    ];
    for (const a of answers) {
      const r = await createEgressClient({ resolve: async () => a }).post('https://hooks.example.test/x', body, {});
      expect(r, JSON.stringify(a)).toEqual({ status: 0, ok: false, error: 'blocked_target' });
    }
  });

  it('metadata addresses stay refused for an allowlisted host', async () => {
    const r = await createEgressClient({ allowHosts: ['meta.test'], resolve: async () => [{ address: '169.254.169.254', family: 4 }] }).post(
      'http://meta.test/latest',
      body,
      {},
    );
    expect(r.error).toBe('blocked_target');
  });

  it('non-http schemes and unparsable URLs are refused', async () => {
    const c = createEgressClient({ allowHosts: ['127.0.0.1'] });
    expect((await c.post(`ftp://127.0.0.1:${port}/`, body, {})).error).toBe('blocked_target');
    expect((await c.post('not a url', body, {})).error).toBe('blocked_target');
  });

  it('connects to the checked address, resolved once, with the original Host header and the raw body', async () => {
    let lookups = 0;
    const resolve: Resolver = async () => {
      lookups++;
      return [{ address: '127.0.0.1', family: 4 }];
    };
    seen.length = 0;
    const r = await createEgressClient({ allowHosts: ['receiver.test'], resolve }).post(`http://receiver.test:${port}/ok?x=1`, body, {
      'content-type': 'application/json; charset=utf-8',
      'x-extra': 'yes',
    });
    expect(r).toEqual({ status: 200, ok: true });
    expect(lookups).toBe(1);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.method).toBe('POST');
    expect(seen[0]!.url).toBe('/ok?x=1');
    expect(seen[0]!.headers.host).toBe(`receiver.test:${port}`);
    expect(seen[0]!.headers['content-length']).toBe(String(body.length));
    expect(seen[0]!.headers['x-extra']).toBe('yes');
    expect(seen[0]!.body.equals(body)).toBe(true);
  });

  it('passes the receiver status through (418 is not ok)', async () => {
    expect(await createEgressClient({ allowHosts: ['127.0.0.1'] }).post(`http://127.0.0.1:${port}/teapot`, body, {})).toEqual({ status: 418, ok: false });
  });

  it('does not follow a redirect: the 3xx is the answer and nothing else is requested', async () => {
    seen.length = 0;
    const r = await createEgressClient({ allowHosts: ['127.0.0.1'] }).post(`http://127.0.0.1:${port}/redirect`, body, {});
    expect(r).toEqual({ status: 302, ok: false });
    await new Promise((res) => setTimeout(res, 50));
    expect(seen.map((s) => s.url)).toEqual(['/redirect']);
  });

  it('a hanging receiver is cut at the deadline', async () => {
    const started = Date.now();
    const r = await createEgressClient({ allowHosts: ['127.0.0.1'], timeoutMs: 300 }).post(`http://127.0.0.1:${port}/hang`, body, {});
    const took = Date.now() - started;
    expect(r).toEqual({ status: 0, ok: false, error: 'timeout' });
    expect(took).toBeGreaterThanOrEqual(290);
    expect(took).toBeLessThan(2000);
  });

  it('a resolver that never answers counts against the same deadline', async () => {
    const r = await createEgressClient({ timeoutMs: 200, resolve: () => new Promise(() => undefined) }).post('https://slow-dns.example.test/', body, {});
    expect(r).toEqual({ status: 0, ok: false, error: 'timeout' });
  });

  it('DNS failures and refused connections are network errors', async () => {
    const nx = await createEgressClient({ resolve: async () => Promise.reject(Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' })) }).post(
      'https://nx.example.test/',
      body,
      {},
    );
    expect(nx).toEqual({ status: 0, ok: false, error: 'network_error' });
    const closed = await new Promise<number>((resolve) => {
      const s = http.createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    const refused = await createEgressClient({ allowHosts: ['127.0.0.1'] }).post(`http://127.0.0.1:${closed}/`, body, {});
    expect(refused).toEqual({ status: 0, ok: false, error: 'network_error' });
  });

  describe('both clients refuse [::ffff:0:7f00:1] (IPv4-translated loopback) without connecting', () => {
    it.each(['[::ffff:0:7f00:1]', '[::ffff:0:127.0.0.1]', '[64:ff9b::7f00:1]', '[::7f00:1]', '[2002:7f00:1::1]', '[::ffff:7f00:1]'])(
      'https://%s:<receiver port>/ok',
      async (host) => {
        const url = `https://${host}:${port}/ok`;
        const { result, opened } = await countingConnections(() => createEgressClient({ allowHosts: [] }).post(url, body, {}));
        expect(result).toEqual({ status: 0, ok: false, error: 'blocked_target' });
        const nudge = createNudgeEgressClient({ timeoutMs: 1_000, allowHosts: [] });
        try {
          const n = await countingConnections(() => nudge.post(url, body, {}));
          expect(n.result).toEqual({ status: 0, ok: false, error: 'blocked_target' });
          expect(n.opened).toBe(0);
        } finally {
          await nudge.close();
        }
        expect(opened).toBe(0);
      },
    );

    it('a host name resolving to it is refused too (callback client, injected resolver)', async () => {
      const resolve: Resolver = async () => [{ address: '::ffff:0:7f00:1', family: 6 }];
      const { result, opened } = await countingConnections(() =>
        createEgressClient({ allowHosts: [], resolve }).post(`https://rebind.example.test:${port}/ok`, body, {}),
      );
      expect(result).toEqual({ status: 0, ok: false, error: 'blocked_target' });
      expect(opened).toBe(0);
    });
  });
});

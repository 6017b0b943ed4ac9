// The SSRF guard of outgoing webhook callbacks (src/infra/http-egress): the address classifier for
// every refused range, and the client against local receivers (no network beyond 127.0.0.1):
// scheme rule, resolve-then-check, pinning to the checked address with the original Host, no
// redirects, the deadline, and failures as values.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyAddress, isAllowedAddress, parseIPv6, type AddressClass } from '../../src/infra/http-egress/address-policy.js';
import { createEgressClient, type Resolver } from '../../src/infra/http-egress/egress-client.js';

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
    // Not addresses at all.
    ['localhost', 'invalid'],
    ['10.0.0', 'invalid'],
    ['', 'invalid'],
  ];
  it.each(cases)('%s is %s', (address, expected) => {
    expect(classifyAddress(address)).toBe(expected);
  });

  it('parses IPv6 forms to the same 16 bytes', () => {
    const hex = (s: string) => Buffer.from(parseIPv6(s)!).toString('hex');
    expect(hex('::ffff:10.0.0.1')).toBe(hex('::ffff:a00:1'));
    expect(hex('1:2:3:4:5:6:7:8')).toBe('00010002000300040005000600070008');
    expect(hex('1:2:3:4:5:6:1.2.3.4')).toBe('00010002000300040005000601020304');
    expect(hex('1::8')).toBe('00010000000000000000000000000008');
    expect(parseIPv6('1:2:3')).toBeNull();
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
    const urls = [`https://127.0.0.1:${port}/ok`, `https://2130706433:${port}/ok`, `https://0x7f.0.0.1:${port}/ok`, `https://[::ffff:127.0.0.1]:${port}/ok`, `https://[::1]:${port}/ok`, `https://internal.example.test:${port}/ok`];
    for (const url of urls) {
      const { result, opened } = await countingConnections(() => createEgressClient({ allowHosts: [], resolve }).post(url, body, {}));
      expect(result, url).toEqual({ status: 0, ok: false, error: 'blocked_target' });
      expect(opened).toBe(0);
    }
  });

  it('a name with any private, metadata or mapped-private answer is refused (mixed answers too)', async () => {
    const answers: Array<Array<{ address: string; family: number }>> = [
      [{ address: '10.0.0.5', family: 4 }],
      [{ address: '93.184.216.34', family: 4 }, { address: '192.168.0.10', family: 4 }],
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
    const r = await createEgressClient({ allowHosts: ['meta.test'], resolve: async () => [{ address: '169.254.169.254', family: 4 }] }).post('http://meta.test/latest', body, {});
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
    const r = await createEgressClient({ allowHosts: ['receiver.test'], resolve }).post(`http://receiver.test:${port}/ok?x=1`, body, { 'content-type': 'application/json; charset=utf-8', 'x-extra': 'yes' });
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
    const nx = await createEgressClient({ resolve: async () => Promise.reject(Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' })) }).post('https://nx.example.test/', body, {});
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
});

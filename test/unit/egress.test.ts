// The SSRF guard of outgoing HTTP (src/infra/http-egress/egress-client.ts, src/infra/chat/nudge-egress.ts)
// against local receivers (no network beyond 127.0.0.1): scheme rule, resolve-then-check, pinning
// to the checked address with the original Host, no redirects, the deadline, failures as values.
// The address policy itself: egress-policy.rules.addresses.test.ts.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEgressClient, type Resolver } from '../../src/infra/http-egress/egress-client.js';
import { createNudgeEgressClient } from '../../src/infra/chat/nudge-egress.js';

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

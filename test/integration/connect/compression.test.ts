// Connect response and request compression (src/transports/connect/compression.ts): gzip and br
// answers at fast settings decode to the same JSON as an uncompressed answer; compressed requests
// are read; a compressed request that inflates past the route's read bound is refused before it
// is read whole (resource_exhausted), never stored.
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withToken, type AgentUser } from '../../helpers/agents.js';
import { closeSessions } from '../../helpers/connect.js';
import { event, newPersonalToken, publish, startHarness, type Harness, type TestToken } from '../../helpers/harness.js';

let h: Harness;
let pt: TestToken;
let ag: AgentUser;
beforeAll(async () => {
  h = await startHarness();
  pt = await newPersonalToken(h);
  ag = await withToken(h, pt.user, ['read:inbox']);
  // An inbox page well over the 1 KiB below which answers are never compressed.
  for (let i = 0; i < 12; i++) {
    h.clock.advance(1_000);
    const r = await publish(
      h,
      pt.token,
      event(h, { title: `Compressed page item ${i}`, summary: 'A summary long enough to make the page worth compressing. '.repeat(3) }),
    );
    expect(r.status, r.text).toBe(202);
  }
});
afterAll(async () => {
  closeSessions();
  await h?.close();
});

const LIST = '/fluxdesk.inbox.v1.InboxService/ListInbox';
const post = (path: string, token: string, body: Buffer, headers: Record<string, string> = {}) =>
  fetch(`${h.baseUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
    body: new Uint8Array(body),
  });
const bytes = async (r: Response) => new Uint8Array(await r.arrayBuffer());

describe('Connect compression', () => {
  it('gzip and br answers decode to the uncompressed answer', async () => {
    const body = JSON.stringify({ view: 'all', limit: 50 });
    // fetch decodes the answer's content-encoding itself (the next test reads the raw bytes).
    const raw = async (enc: string) => {
      const res = await fetch(`${h.baseUrl}${LIST}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ag.token}`, 'content-type': 'application/json', 'accept-encoding': enc },
        body,
      });
      return { status: res.status, encoding: res.headers.get('content-encoding'), json: JSON.parse(new TextDecoder().decode(await bytes(res))) };
    };
    const plain = await raw('identity');
    expect(plain.status).toBe(200);
    expect(plain.encoding).toBeNull();
    expect(plain.json.items).toHaveLength(12);
    for (const enc of ['gzip', 'br']) {
      const r = await raw(enc);
      expect(r.status, enc).toBe(200);
      expect(r.encoding, enc).toBe(enc);
      expect(r.json.items, enc).toEqual(plain.json.items);
    }
  });

  it('the compressed bytes are real gzip and brotli (smaller than the JSON)', async () => {
    const http = await import('node:http');
    const body = JSON.stringify({ view: 'all', limit: 50 });
    const get = (enc: string) =>
      new Promise<{ encoding: string | undefined; data: Buffer }>((resolve, reject) => {
        const req = http.request(
          `${h.baseUrl}${LIST}`,
          { method: 'POST', headers: { authorization: `Bearer ${ag.token}`, 'content-type': 'application/json', 'accept-encoding': enc } },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => resolve({ encoding: res.headers['content-encoding'], data: Buffer.concat(chunks) }));
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    const plain = await get('identity');
    const gz = await get('gzip');
    const br = await get('br');
    expect([gz.encoding, br.encoding]).toEqual(['gzip', 'br']);
    expect(gz.data.length).toBeLessThan(plain.data.length / 2);
    expect(br.data.length).toBeLessThan(plain.data.length / 2);
    expect(JSON.parse(gunzipSync(gz.data).toString()).items).toHaveLength(12);
    expect(JSON.parse(brotliDecompressSync(br.data).toString()).items).toHaveLength(12);
  });

  it('a gzip or br request is read; one that inflates past the read bound is resource_exhausted', async () => {
    const body = Buffer.from(JSON.stringify({ view: 'all', limit: 1 }));
    for (const [enc, pack] of [
      ['gzip', gzipSync],
      ['br', brotliCompressSync],
    ] as const) {
      const ok = await post(LIST, ag.token, pack(body), { 'content-encoding': enc });
      expect(ok.status, enc).toBe(200);
      expect(((await ok.json()) as { items: unknown[] }).items).toHaveLength(1);
      // 64 MiB of spaces (valid JSON padding) in a few kilobytes.
      const bomb = pack(Buffer.concat([Buffer.from('{"view":"all"'), Buffer.alloc(64 * 1024 * 1024, 0x20), Buffer.from('}')]));
      expect(bomb.length).toBeLessThan(1024 * 1024);
      const res = await post(LIST, ag.token, bomb, { 'content-encoding': enc });
      expect(res.status, enc).toBe(429);
      expect(((await res.json()) as { code: string }).code, enc).toBe('resource_exhausted');
    }
  });
});

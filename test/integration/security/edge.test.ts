// One HTTP edge: REST v1, the legacy endpoints and /mcp answer the same request
// the same way, each in its own envelope (SPEC Errors): the same WWW-Authenticate for a request
// without credentials and for a bad bearer token (RFC 6750 §3.1), the same rate-limit headers on a
// 429 (SPEC Errors: X-RateLimit-Limit, -Remaining, -Reset, Retry-After), and the same body decision
// (SPEC "Requirements for the inbound POST": application/json; charset=utf-8; UTF-8 only).
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { event, http, newPersonalToken, startHarness, type Harness, type HttpResult } from '../../helpers/harness.js';
import { mcp, newAgent, rpc } from '../mcp/rpc.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const REST = '/api/v1/events';
const LEGACY = '/api/internal-os/integrations/inbound/personal';
const NO_CREDENTIALS = 'Bearer realm="fluxdesk"';
const INVALID_TOKEN = 'Bearer realm="fluxdesk", error="invalid_token"';

type Surface = 'rest' | 'legacy' | 'mcp';
const SURFACES: readonly Surface[] = ['rest', 'legacy', 'mcp'];

/** One POST on a surface: an event for REST / legacy, a JSON-RPC ping for MCP, with raw headers and body. */
async function post(surface: Surface, opts: { authorization?: string; contentType?: string; body?: Uint8Array | string }): Promise<HttpResult> {
  const headers: Record<string, string> = {};
  if (opts.authorization !== undefined) headers.authorization = opts.authorization;
  if (opts.contentType !== undefined) headers['content-type'] = opts.contentType;
  const body = opts.body ?? JSON.stringify(surface === 'mcp' ? rpc('ping', undefined, 1) : event(h));
  if (surface === 'mcp') {
    const r = await mcp(h, undefined, { raw: body, headers: { ...headers, 'content-type': opts.contentType ?? 'application/json' } });
    return r;
  }
  return http(h, 'POST', surface === 'rest' ? REST : LEGACY, { rawBody: body, headers: { 'content-type': 'application/json', ...headers } });
}

/** A valid credential for the surface: a personal token (REST, legacy) or an agent token (MCP). */
async function tokenFor(surface: Surface): Promise<string> {
  return surface === 'mcp' ? (await newAgent(h)).token : (await newPersonalToken(h)).token;
}

/** The surface's envelope of a refusal: its status and its machine code. */
function refusal(surface: Surface, r: HttpResult): { status: number; code: string | number } {
  if (surface === 'rest') {
    expect(r.headers.get('content-type'), r.text).toMatch(/^application\/problem\+json/);
    expect(r.body.status).toBe(r.status);
    return { status: r.status, code: r.body.code };
  }
  if (surface === 'legacy') {
    expect(r.headers.get('content-type'), r.text).toMatch(/^application\/json/);
    return { status: r.status, code: r.body.error };
  }
  expect(r.body, r.text).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: expect.any(Number), message: expect.any(String) } });
  return { status: r.status, code: r.body.error.code };
}

describe('WWW-Authenticate: one challenge for every surface', () => {
  it.each(SURFACES)('%s: no Authorization header (or another scheme) is 401 with the bare bearer challenge', async (surface) => {
    for (const authorization of [undefined, 'Basic dXNlcjpwdw==']) {
      const r = await post(surface, { authorization });
      expect(r.status, r.text).toBe(401);
      expect(r.headers.get('www-authenticate')).toBe(NO_CREDENTIALS);
    }
  });

  it.each(SURFACES)('%s: a malformed, unknown or revoked bearer token is 401 with error="invalid_token"', async (surface) => {
    const unknown = `${surface === 'mcp' ? 'sk-svc-' : 'svc-in-pers-'}${randomBytes(24).toString('base64url')}`;
    for (const authorization of ['Bearer garbage', `Bearer ${unknown}`, 'Bearer  two-spaces']) {
      const r = await post(surface, { authorization });
      expect(r.status, `${authorization}: ${r.text}`).toBe(401);
      expect(r.headers.get('www-authenticate'), authorization).toBe(INVALID_TOKEN);
    }
  });

  it('a token valid on one surface but of the wrong kind on another is invalid_token there too', async () => {
    const personal = (await newPersonalToken(h)).token;
    const agent = (await newAgent(h)).token;
    const onMcp = await post('mcp', { authorization: `Bearer ${personal}` });
    const onRest = await post('rest', { authorization: `Bearer ${agent}` });
    const onLegacy = await post('legacy', { authorization: `Bearer ${agent}` });
    for (const r of [onMcp, onRest, onLegacy]) {
      expect(r.status, r.text).toBe(401);
      expect(r.headers.get('www-authenticate')).toBe(INVALID_TOKEN);
    }
  });
});

describe('429: the same rate-limit headers on every surface', () => {
  const RATE_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'retry-after'];

  it('REST, legacy and MCP each refuse the 61st request in a minute with X-RateLimit-* and Retry-After', async () => {
    const seen: Record<string, string[]> = {};
    for (const surface of SURFACES) {
      const token = await tokenFor(surface);
      let last: HttpResult | undefined;
      for (let i = 0; i < 61; i++) {
        last = await post(surface, { authorization: `Bearer ${token}` });
        if (i < 60) expect(last.status, `${surface} #${i + 1}: ${last.text}`).toBeLessThan(300);
      }
      const over = last!;
      expect(over.status, `${surface}: ${over.text}`).toBe(429);
      expect(over.headers.get('x-ratelimit-limit')).toBe('60');
      expect(over.headers.get('x-ratelimit-remaining')).toBe('0');
      const nowUnix = h.clock.now().getTime() / 1000;
      const reset = Number(over.headers.get('x-ratelimit-reset'));
      expect(Number.isInteger(reset)).toBe(true);
      expect(reset).toBeGreaterThan(nowUnix);
      expect(reset).toBeLessThanOrEqual(Math.ceil(nowUnix) + 61);
      const retryAfter = Number(over.headers.get('retry-after'));
      expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, String(retryAfter)).toBe(true);
      // A 429 is not an authentication failure: no challenge.
      expect(over.headers.get('www-authenticate')).toBeNull();
      seen[surface] = [...over.headers.keys()].filter((k) => k.startsWith('x-ratelimit-') || k === 'retry-after').sort();
    }
    for (const surface of SURFACES) expect(seen[surface], surface).toEqual([...RATE_HEADERS].sort());
  });
});

describe('the body: one decision, each surface its own envelope', () => {
  const tokens: Partial<Record<Surface, string>> = {};
  const auth = async (surface: Surface) => `Bearer ${(tokens[surface] ??= await tokenFor(surface))}`;
  const nested = (levels: number) => `{"deep":${'['.repeat(levels)}${']'.repeat(levels)}}`;

  /** What each surface answers for a refused body: REST and legacy the same status and code, MCP its JSON-RPC form. */
  const EXPECT = {
    unsupported: {
      rest: { status: 415, code: 'unsupported_media_type' },
      legacy: { status: 415, code: 'unsupported_media_type' },
      mcp: { status: 415, code: -32600 },
    },
    malformed: { rest: { status: 400, code: 'malformed_json' }, legacy: { status: 400, code: 'malformed_json' }, mcp: { status: 400, code: -32700 } },
    forbidden_key: { rest: { status: 400, code: 'forbidden_key' }, legacy: { status: 400, code: 'forbidden_key' }, mcp: { status: 400, code: -32700 } },
    too_deep: { rest: { status: 400, code: 'too_deep' }, legacy: { status: 400, code: 'too_deep' }, mcp: { status: 400, code: -32700 } },
  } as const;

  const CASES: Array<[string, { contentType?: string; body: Uint8Array | string }, keyof typeof EXPECT]> = [
    ['charset=latin1', { contentType: 'application/json; charset=latin1', body: '{}' }, 'unsupported'],
    ['charset=utf-16', { contentType: 'application/json; charset=utf-16', body: '{}' }, 'unsupported'],
    ['text/plain', { contentType: 'text/plain', body: '{}' }, 'unsupported'],
    ['a +json media type', { contentType: 'application/vnd.api+json', body: '{}' }, 'unsupported'],
    ['invalid UTF-8', { body: new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d]) }, 'malformed'],
    ['broken JSON', { body: '{"a":' }, 'malformed'],
    ['a __proto__ key', { body: '{"__proto__":{"admin":true}}' }, 'forbidden_key'],
    ['a constructor.prototype object', { body: '{"constructor":{"prototype":{"admin":true}}}' }, 'forbidden_key'],
    ['65 levels of nesting', { body: nested(64) }, 'too_deep'],
  ];

  it.each(CASES)('%s', async (_name, req, outcome) => {
    for (const surface of SURFACES) {
      const r = await post(surface, { authorization: await auth(surface), ...req });
      expect(refusal(surface, r), `${surface}: ${r.text}`).toEqual(EXPECT[outcome][surface]);
      expect(r.status).toBeLessThan(500);
    }
  });

  it('accepted alike: charset=utf-8 in any case, quoted, or none; a UTF-8 byte order mark is dropped', async () => {
    for (const surface of SURFACES) {
      for (const contentType of ['application/json', 'application/json; charset=UTF-8', 'Application/JSON;charset="utf-8"']) {
        const r = await post(surface, { authorization: await auth(surface), contentType });
        expect(r.status, `${surface} ${contentType}: ${r.text}`).toBeLessThan(300);
      }
      const json = JSON.stringify(surface === 'mcp' ? rpc('ping', undefined, 1) : event(h, { title: 'Überweisung – 支付失败' }));
      const withBom = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode(json)]);
      const r = await post(surface, { authorization: await auth(surface), body: withBom });
      expect(r.status, `${surface} BOM: ${r.text}`).toBeLessThan(300);
      if (surface !== 'mcp') expect(r.body.title).toBe('Überweisung – 支付失败');
    }
  });
});

// The older inbound endpoints under /api/internal-os (SPEC section B, "Legacy 400 body",
// Versioning 2 and 7; inbound protocol 2, 4, 5, 10).
import { request as httpRequest } from 'node:http';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { event, http, newPersonalToken, newUser, operator, publishLegacy, startHarness, type Harness, type HttpResult } from '../../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const INBOUND = '/api/internal-os/integrations/inbound/personal';
const PING = '/api/internal-os/integrations/inbound/personal/ping';
const KB = 1024;
const sql = (q: string, params: unknown[] = []) => h.svc.deps.orm.em.getConnection().execute(q, params) as Promise<any[]>;
const readBack = (token: string, id: string) => http(h, 'GET', `/api/v1/events/${id}`, { token });
const postRaw = (token: string, rawBody: string | Uint8Array, contentType = 'application/json') =>
  http(h, 'POST', INBOUND, { token, rawBody, headers: { 'content-type': contentType } });

/** The legacy error body: `{error, message}` with a JSON content type. */
function expectLegacyError(r: HttpResult, status: number, error: string) {
  expect(r.status).toBe(status);
  expect(r.headers.get('content-type')).toMatch(/^application\/json/);
  expect(r.body).toMatchObject({ error, message: expect.any(String) });
  expect(r.body.type).toBeUndefined();
}

describe('POST /api/internal-os/integrations/inbound/personal', () => {
  it('202 on the first arrival, 200 deduped on a repeat of (token, event_id)', async () => {
    const t = await newPersonalToken(h);
    const ev = event(h, { external_status: 'firing' });
    const first = await publishLegacy(h, t.token, ev, { 'x-request-id': 'legacy-1' });
    expect(first.status).toBe(202);
    expect(first.headers.get('x-request-id')).toBe('legacy-1');
    expect(first.body).toMatchObject({
      eventType: ev.event_type,
      title: ev.title,
      fireCount: 1,
      deduped: false,
      ok: true,
      requestId: 'legacy-1',
      recipientUserId: t.user.userId,
    });
    const second = await publishLegacy(h, t.token, ev);
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ deliveryId: first.body.deliveryId, fireCount: 2, deduped: true });
    expect(await sql(`select id from notifications where delivery_id = ?`, [first.body.deliveryId])).toHaveLength(1);
  });

  it('shares dedup with /api/v1/events: same token and event_id is the same delivery', async () => {
    const t = await newPersonalToken(h);
    const ev = event(h);
    const v1 = await http(h, 'POST', '/api/v1/events', { token: t.token, body: ev });
    expect(v1.status).toBe(202);
    const legacy = await publishLegacy(h, t.token, ev);
    expect(legacy.status).toBe(200);
    expect(legacy.body.deliveryId).toBe(v1.body.deliveryId);
  });

  it('does not enforce the event-type namespace', async () => {
    const t = await newPersonalToken(h);
    const r = await publishLegacy(h, t.token, event(h, { event_type: 'anything.x' }));
    expect(r.status).toBe(202);
    expect(r.body.eventType).toBe('anything.x');
  });

  it('stores an unlisted external_status as null', async () => {
    const t = await newPersonalToken(h);
    const r = await publishLegacy(h, t.token, event(h, { external_status: 'exploded' }));
    expect(r.status).toBe(202);
    expect(r.body.externalStatus).toBeUndefined();
    const back = await readBack(t.token, r.body.deliveryId);
    expect(back.status).toBe(200);
    expect('externalStatus' in back.body).toBe(false);
    expect(await sql(`select external_status from deliveries where id = ?`, [r.body.deliveryId])).toEqual([{ external_status: null }]);
  });

  it('keeps a listed external_status, and a repeat with an unlisted one keeps the previous status', async () => {
    const t = await newPersonalToken(h);
    const ev = event(h, { external_status: 'pending' });
    const r = await publishLegacy(h, t.token, ev);
    expect(r.status).toBe(202);
    expect((await readBack(t.token, r.body.deliveryId)).body.externalStatus).toBe('pending');

    const repeat = await publishLegacy(h, t.token, { ...ev, external_status: 'exploded' });
    expect(repeat.status).toBe(200);
    expect((await readBack(t.token, r.body.deliveryId)).body.externalStatus).toBe('pending');

    const approved = await publishLegacy(h, t.token, { ...ev, external_status: 'approved' });
    expect(approved.status).toBe(200);
    expect((await readBack(t.token, r.body.deliveryId)).body.externalStatus).toBe('approved');
  });

  it('400 legacy body lists every issue, with reason and field repeating the first one', async () => {
    const t = await newPersonalToken(h);
    const r = await publishLegacy(
      h,
      t.token,
      event(h, { title: '', severity: 'fatal', actions: [{ label: 'Open', url: 'http://example.com' }], prompt: 'never stored', action_label: 'Go' }),
    );
    expectLegacyError(r, 400, 'schema_invalid');
    const errors = r.body.errors as Array<{ field: string; reason: string; message: string }>;
    expect(errors.map((e) => `${e.field}:${e.reason}`).sort()).toEqual(
      ['title:required', 'severity:invalid_enum', 'actions[0].url:invalid_format', 'prompt:forbidden_key', 'action_label:legacy_key'].sort(),
    );
    for (const e of errors) expect(e.message).toEqual(expect.any(String));
    expect(r.body.reason).toBe(errors[0]!.reason);
    expect(r.body.field).toBe(errors[0]!.field);
    expect(r.body.message).toBe(errors[0]!.message);
    expect(r.text).not.toContain('never stored');
    expect(await sql(`select id from deliveries where token_id = ?`, [t.tokenId])).toEqual([]);
    expect(await sql(`select action from audit_log where token_id = ? and action like 'inbound.event.%'`, [t.tokenId])).toEqual([
      { action: 'inbound.event.rejected' },
    ]);
  });

  it('spec_version 1 is refused here too', async () => {
    const t = await newPersonalToken(h);
    const r = await publishLegacy(h, t.token, event(h, { spec_version: '1' }));
    expectLegacyError(r, 400, 'schema_invalid');
    expect(r.body).toMatchObject({ field: 'spec_version', reason: 'invalid_format' });
  });

  it('a personal token may not send recipient or recipient_hint', async () => {
    const t = await newPersonalToken(h);
    const r = await publishLegacy(h, t.token, event(h, { recipient: { type: 'email', value: 'bob@example.com' } }));
    expectLegacyError(r, 400, 'schema_invalid');
    expect(r.body).toMatchObject({ field: 'recipient', reason: 'recipient_hint_forbidden' });
  });
});

describe('inbound POST transport rules (inbound protocol 10)', () => {
  it('a chunked request without Content-Length is refused with 411', async () => {
    const t = await newPersonalToken(h);
    const url = new URL(INBOUND, h.baseUrl);
    const body = JSON.stringify(event(h));
    const r = await new Promise<{ status: number; contentType: string | undefined; text: string }>((resolve, reject) => {
      const req = httpRequest(
        {
          hostname: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          headers: { authorization: `Bearer ${t.token}`, 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode!, contentType: res.headers['content-type'], text: Buffer.concat(chunks).toString('utf8') }));
        },
      );
      req.on('error', reject);
      req.write(body.slice(0, 10));
      req.end(body.slice(10));
    });
    expect(r.status).toBe(411);
    expect(JSON.parse(r.text)).toMatchObject({ error: 'length_required' });
    expect(await sql(`select id from deliveries where token_id = ?`, [t.tokenId])).toEqual([]);
  });

  it('text/plain or a non-utf-8 charset is 415 unsupported_media_type', async () => {
    const t = await newPersonalToken(h);
    expectLegacyError(await postRaw(t.token, JSON.stringify(event(h)), 'text/plain'), 415, 'unsupported_media_type');
    expectLegacyError(await postRaw(t.token, JSON.stringify(event(h)), 'application/json; charset=latin1'), 415, 'unsupported_media_type');
    expect((await postRaw(t.token, JSON.stringify(event(h)), 'application/json; charset=utf-8')).status).toBe(202);
  });

  it('a body over 256 KB is 413 payload_too_large', async () => {
    const t = await newPersonalToken(h);
    const body = `{"padding":"${'a'.repeat(256 * KB)}"}`;
    expectLegacyError(await postRaw(t.token, body), 413, 'payload_too_large');
  });

  it('malformed JSON or invalid UTF-8 is 400 malformed_json', async () => {
    const t = await newPersonalToken(h);
    expectLegacyError(await postRaw(t.token, '{"spec_version":'), 400, 'malformed_json');
    const bytes = Buffer.from(JSON.stringify(event(h, { title: 'ab' })), 'utf8');
    bytes[bytes.indexOf('ab')] = 0xff;
    expectLegacyError(await postRaw(t.token, new Uint8Array(bytes)), 400, 'malformed_json');
  });

  it('a token in the query string is 400 token_in_query', async () => {
    const t = await newPersonalToken(h);
    const r = await http(h, 'POST', `${INBOUND}?api_key=${t.token}`, { token: t.token, body: event(h) });
    expectLegacyError(r, 400, 'token_in_query');
    expect(r.text).not.toContain(t.token);
    expect(await sql(`select id from deliveries where token_id = ?`, [t.tokenId])).toEqual([]);
  });

  it('one event per request: a batch is 400 schema_invalid', async () => {
    const t = await newPersonalToken(h);
    const r = await postRaw(t.token, JSON.stringify([event(h), event(h)]));
    expectLegacyError(r, 400, 'schema_invalid');
    expect(r.body).toMatchObject({ field: '', reason: 'invalid_type' });
    expect(await sql(`select id from deliveries where token_id = ?`, [t.tokenId])).toEqual([]);
  });
});

describe('legacy 401 bodies', () => {
  it.each([
    ['no header', undefined, 'missing_or_invalid_authorization'],
    ['another scheme', 'Basic x', 'missing_or_invalid_authorization'],
    ['a non-token value', 'Bearer garbage', 'invalid_token_format'],
    ['an unknown personal token', `Bearer svc-in-pers-${randomBytes(24).toString('base64url')}`, 'token_not_found'],
    ['a tools-token', `Bearer svc-tools-${randomBytes(24).toString('base64url')}`, 'token_mismatch'],
  ])('%s: {error: <code>}', async (_name, authorization, code) => {
    const r = await http(h, 'POST', INBOUND, { body: event(h), headers: authorization === undefined ? {} : { authorization } });
    expectLegacyError(r, 401, code);
    if (authorization?.startsWith('Bearer ')) expect(r.text).not.toContain(authorization.slice('Bearer '.length));
  });

  it('an agent token is token_mismatch; a revoked token is token_revoked', async () => {
    const u = await newUser(h);
    const agent = await operator<{ token: string }>(h, 'agent_tokens.create', { email: u.email });
    expectLegacyError(await publishLegacy(h, agent.token, event(h)), 401, 'token_mismatch');

    const t = await newPersonalToken(h);
    await sql(`update inbound_tokens set status = 'revoked' where id = ?`, [t.tokenId]);
    const r = await publishLegacy(h, t.token, event(h));
    expectLegacyError(r, 401, 'token_revoked');
    expect(r.text).not.toContain(t.token);
  });
});

describe('personal ping', () => {
  it('returns {ok, token_id, owner, now} and creates nothing', async () => {
    const t = await newPersonalToken(h);
    const r = await http(h, 'POST', PING, { token: t.token, body: {} });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ok: true, token_id: t.tokenId, owner: t.user.email, now: expect.any(String) });
    expect(Math.abs(Date.parse(r.body.now) - h.clock.now().getTime())).toBeLessThan(60_000);
    expect(await sql(`select id from notifications where user_id = ?`, [t.user.userId])).toEqual([]);
    expect(await sql(`select id from deliveries where token_id = ?`, [t.tokenId])).toEqual([]);
  });

  it('accepts any JSON body, even one that looks like an event', async () => {
    const t = await newPersonalToken(h);
    const r = await http(h, 'POST', PING, { token: t.token, body: { ...event(h), anything: [1, 2, 3] } });
    expect(r.status).toBe(200);
    expect(r.body.ok).toBe(true);
    expect(await sql(`select id from notifications where user_id = ?`, [t.user.userId])).toEqual([]);
  });

  it.each([
    ['an array', '[1, 2]'],
    ['a string', '"hello"'],
    ['null', 'null'],
  ])('accepts %s as the body', async (_name, rawBody) => {
    const t = await newPersonalToken(h);
    const r = await http(h, 'POST', PING, { token: t.token, rawBody, headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ ok: true, token_id: t.tokenId });
  });

  it('reports the service clock', async () => {
    const t = await newPersonalToken(h);
    h.clock.advance(10 * 60_000);
    const r = await http(h, 'POST', PING, { token: t.token, body: {} });
    expect(Math.abs(Date.parse(r.body.now) - h.clock.now().getTime())).toBeLessThan(5_000);
    expect(Date.parse(r.body.now) - Date.now()).toBeGreaterThan(9 * 60_000);
  });

  it('an invalid token gets a legacy 401', async () => {
    const r = await http(h, 'POST', PING, { body: {}, headers: { authorization: 'Bearer garbage' } });
    expectLegacyError(r, 401, 'invalid_token_format');
  });
});

describe('unauthenticated texts and probes', () => {
  it('GET /api/internal-os/integrations/protocol serves the inbound protocol 2.0 as markdown', async () => {
    const r = await http(h, 'GET', '/api/internal-os/integrations/protocol');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/markdown/);
    expect(r.text).toContain('inbound protocol, version 2.0');
  });

  it('GET /api/internal-os/agent/protocol serves the agent protocol 1.22 as markdown', async () => {
    const r = await http(h, 'GET', '/api/internal-os/agent/protocol');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/markdown/);
    expect(r.text).toContain('version 1.22');
  });

  it('the texts ignore a token that is sent anyway', async () => {
    const r = await http(h, 'GET', '/api/internal-os/integrations/protocol', { headers: { authorization: 'Bearer garbage' } });
    expect(r.status).toBe(200);
  });

  it('GET /api/internal-os/healthz answers 200', async () => {
    const r = await http(h, 'GET', '/api/internal-os/healthz');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ok: true });
  });
});

describe('version 1 inbound paths are gone', () => {
  it.each(['GET', 'POST'])('%s /inbound/<slug> answers 410', async (method) => {
    const r = await http(h, method, '/inbound/some-slug', method === 'POST' ? { body: event(h) } : {});
    expect(r.status).toBe(410);
  });

  it('/api/internal-os/integrations/inbound/<slug> other than personal answers 410', async () => {
    const t = await newPersonalToken(h);
    const r = await http(h, 'POST', '/api/internal-os/integrations/inbound/some-slug', { token: t.token, body: event(h) });
    expect(r.status).toBe(410);
    expect(await sql(`select id from deliveries where token_id = ?`, [t.tokenId])).toEqual([]);
  });
});

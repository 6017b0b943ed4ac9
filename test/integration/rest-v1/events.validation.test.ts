// POST /api/v1/events validation through real HTTP (SPEC "Inbound event validation rules",
// Errors "REST v1 error envelope", Limits; inbound protocol 3, 5, 9, 10).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { event, http, newPersonalToken, publish, startHarness, type Harness, type HttpResult } from '../../helpers/harness.js';

let h: Harness;
let errorsBase: string;
beforeAll(async () => {
  // A real port, so the default error-type base is `${baseUrl}/errors`.
  h = await startHarness();
  errorsBase = `${h.baseUrl}/errors`;
});
afterAll(async () => {
  await h?.close();
});

const MIN = 60_000;
const HOUR = 60 * MIN;
const KB = 1024;

const sql = (q: string, params: unknown[] = []) => h.svc.deps.orm.em.getConnection().execute(q, params) as Promise<any[]>;
const deliveriesOf = async (tokenId: string) => Number((await sql(`select count(*) as n from deliveries where token_id = ?`, [tokenId]))[0].n);
const eventAuditOf = (tokenId: string) =>
  sql(`select action from audit_log where token_id = ? and action like 'inbound.event.%' order by created_at`, [tokenId]);

const post = (token: string, opts: { rawBody?: string | Uint8Array; headers?: Record<string, string>; path?: string } = {}) =>
  http(h, 'POST', opts.path ?? '/api/v1/events', { token, rawBody: opts.rawBody, headers: opts.headers });

/** The RFC 7807 envelope every REST v1 error carries. */
function expectProblem(r: HttpResult, status: number, slug: string) {
  expect(r.status).toBe(status);
  expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(r.body).toMatchObject({ type: `${errorsBase}/${slug}`, status, instance: '/api/v1/events' });
  expect(typeof r.body.title).toBe('string');
  expect(typeof r.body.detail).toBe('string');
  expect(r.body.requestId).toBe(r.headers.get('x-request-id'));
}

const pairs = (r: HttpResult) => (r.body.errors as Array<{ field: string; code: string }>).map((e) => `${e.field}:${e.code}`);

describe('400 validation-failed', () => {
  it('reports every issue at once, in errors[] and fieldErrors, stores nothing and audits the rejection', async () => {
    const t = await newPersonalToken(h);
    const bad = event(h, {
      event_type: 'billing.invoice.paid',
      severity: 'fatal',
      title: '',
      occurred_at: new Date(h.clock.now().getTime() - 25 * HOUR).toISOString(),
      external_url: 'http://example.com/x',
      actions: [{ label: 'x'.repeat(41), action_type: 'url', url: 'https://example.com' }],
      payload: { secret: 'never stored' },
    });
    const r = await publish(h, t.token, bad, { 'x-request-id': 'val-many-1' });
    expectProblem(r, 400, 'validation-failed');
    expect(r.body.requestId).toBe('val-many-1');
    expect(r.body.code).toBe('schema_invalid');
    expect(pairs(r).sort()).toEqual(
      [
        'event_type:namespace_mismatch',
        'severity:invalid_enum',
        'title:required',
        'occurred_at:too_old',
        'external_url:invalid_format',
        'actions[0].label:too_long',
        'payload:forbidden_key',
      ].sort(),
    );
    expect(Object.keys(r.body.fieldErrors).sort()).toEqual(
      ['event_type', 'severity', 'title', 'occurred_at', 'external_url', 'actions[0].label', 'payload'].sort(),
    );
    for (const msgs of Object.values(r.body.fieldErrors)) {
      expect(Array.isArray(msgs)).toBe(true);
      expect((msgs as string[]).every((m) => typeof m === 'string' && m.length > 0)).toBe(true);
    }
    expect(r.text).not.toContain('never stored');

    expect(await deliveriesOf(t.tokenId)).toBe(0);
    expect(await sql(`select id from notifications where user_id = ?`, [t.user.userId])).toEqual([]);
    expect(await eventAuditOf(t.tokenId)).toEqual([{ action: 'inbound.event.rejected' }]);
  });

  it('a field with two problems lists both messages under its path', async () => {
    const t = await newPersonalToken(h);
    const r = await publish(h, t.token, event(h, { external_url: 'http://example.com/?token=abc' }));
    expectProblem(r, 400, 'validation-failed');
    expect(pairs(r)).toEqual(['external_url:invalid_format', 'external_url:credential_param']);
    expect(r.body.fieldErrors.external_url).toHaveLength(2);
  });

  it('the namespace gate: event_type outside the token prefix is a field error namespace_mismatch', async () => {
    const t = await newPersonalToken(h);
    const r = await publish(h, t.token, event(h, { event_type: 'ci.build.failed' }));
    expectProblem(r, 400, 'validation-failed');
    expect(r.body.errors).toEqual([{ field: 'event_type', code: 'namespace_mismatch', message: expect.stringContaining('personal.') }]);
    expect(Object.keys(r.body.fieldErrors)).toEqual(['event_type']);
    expect(await deliveriesOf(t.tokenId)).toBe(0);

    const ok = await publish(h, t.token, event(h, { event_type: 'personal.ci.build.failed' }));
    expect(ok.status).toBe(202);
  });

  it('spec_version 1 and the number 2 are refused', async () => {
    const t = await newPersonalToken(h);
    const r1 = await publish(h, t.token, event(h, { spec_version: '1' }));
    expectProblem(r1, 400, 'validation-failed');
    expect(pairs(r1)).toEqual(['spec_version:invalid_format']);
    const r2 = await publish(h, t.token, event(h, { spec_version: 2 }));
    expect(pairs(r2)).toEqual(['spec_version:invalid_type']);
  });

  it('an unlisted external_status is invalid_enum on /api/v1 (no leniency here)', async () => {
    const t = await newPersonalToken(h);
    const r = await publish(h, t.token, event(h, { external_status: 'exploded' }));
    expectProblem(r, 400, 'validation-failed');
    expect(pairs(r)).toEqual(['external_status:invalid_enum']);
  });
});

describe('occurred_at window follows the service clock', () => {
  it('an event time that was inside the window falls out of it when the clock moves past now - 24 h', async () => {
    const t = await newPersonalToken(h);
    const occurred = new Date(h.clock.now().getTime() - 24 * HOUR + 2 * MIN).toISOString();
    const first = await publish(h, t.token, event(h, { event_id: 'window-a', occurred_at: occurred }));
    expect(first.status).toBe(202);

    h.clock.advance(3 * MIN);
    const late = await publish(h, t.token, event(h, { event_id: 'window-b', occurred_at: occurred }));
    expectProblem(late, 400, 'validation-failed');
    expect(pairs(late)).toEqual(['occurred_at:too_old']);
  });

  it('up to 5 minutes in the future is accepted, beyond it is in_future', async () => {
    const t = await newPersonalToken(h);
    const soon = new Date(h.clock.now().getTime() + 4 * MIN).toISOString();
    expect((await publish(h, t.token, event(h, { occurred_at: soon }))).status).toBe(202);
    const later = new Date(h.clock.now().getTime() + 6 * MIN).toISOString();
    const r = await publish(h, t.token, event(h, { occurred_at: later }));
    expectProblem(r, 400, 'validation-failed');
    expect(pairs(r)).toEqual(['occurred_at:in_future']);

    // The same timestamp becomes acceptable once the clock catches up.
    h.clock.advance(2 * MIN);
    expect((await publish(h, t.token, event(h, { occurred_at: later }))).status).toBe(202);
  });
});

describe('body limits and media type', () => {
  const jsonOfSize = (bytes: number) => {
    const head = '{"padding":"';
    const tail = '"}';
    return head + 'a'.repeat(bytes - head.length - tail.length) + tail;
  };
  const JSON_CT = { 'content-type': 'application/json' };

  it('a body over 256 KB is refused with 413', async () => {
    const t = await newPersonalToken(h);
    const body = jsonOfSize(256 * KB + 1);
    expect(Buffer.byteLength(body)).toBe(256 * KB + 1);
    const r = await post(t.token, { rawBody: body, headers: JSON_CT });
    expectProblem(r, 413, 'payload-too-large');
    expect(await deliveriesOf(t.tokenId)).toBe(0);
  });

  it('a body of exactly 256 KB is not 413 (it reaches validation)', async () => {
    const t = await newPersonalToken(h);
    const body = jsonOfSize(256 * KB);
    expect(Buffer.byteLength(body)).toBe(256 * KB);
    const r = await post(t.token, { rawBody: body, headers: JSON_CT });
    expect(r.status).not.toBe(413);
    expectProblem(r, 400, 'validation-failed');
    expect(pairs(r)).toContain('padding:unknown_key');
  });

  it('a valid event padded with whitespace to exactly 256 KB is accepted', async () => {
    const t = await newPersonalToken(h);
    const json = JSON.stringify(event(h));
    const body = json + ' '.repeat(256 * KB - Buffer.byteLength(json));
    expect(Buffer.byteLength(body)).toBe(256 * KB);
    const r = await post(t.token, { rawBody: body, headers: JSON_CT });
    expect(r.status).toBe(202);
  });

  it('text/plain is refused with 415', async () => {
    const t = await newPersonalToken(h);
    const r = await post(t.token, { rawBody: JSON.stringify(event(h)), headers: { 'content-type': 'text/plain' } });
    expectProblem(r, 415, 'unsupported-media-type');
    expect(await deliveriesOf(t.tokenId)).toBe(0);
  });

  it('a charset other than utf-8 is refused with 415; utf-8 in any spelling is accepted', async () => {
    const t = await newPersonalToken(h);
    const r = await post(t.token, { rawBody: JSON.stringify(event(h)), headers: { 'content-type': 'application/json; charset=latin1' } });
    expectProblem(r, 415, 'unsupported-media-type');
    expect(await deliveriesOf(t.tokenId)).toBe(0);
    const ok = await post(t.token, { rawBody: JSON.stringify(event(h)), headers: { 'content-type': 'application/json; charset=UTF-8' } });
    expect(ok.status).toBe(202);
  });

  it('malformed JSON is 400 malformed_json', async () => {
    const t = await newPersonalToken(h);
    const r = await post(t.token, { rawBody: '{"spec_version": "2",', headers: JSON_CT });
    expectProblem(r, 400, 'validation-failed');
    expect(r.body.code).toBe('malformed_json');
    expect(pairs(r)).toEqual([':malformed_json']);
  });

  it('invalid UTF-8 bytes are 400 malformed_json', async () => {
    const t = await newPersonalToken(h);
    const json = Buffer.from(JSON.stringify(event(h, { title: 'caf__' })), 'utf8');
    const at = json.indexOf('__');
    json[at] = 0xc3; // a lead byte followed by '_' is not UTF-8
    json[at + 1] = 0x28;
    const r = await post(t.token, { rawBody: new Uint8Array(json), headers: JSON_CT });
    expectProblem(r, 400, 'validation-failed');
    expect(r.body.code).toBe('malformed_json');
    expect(await deliveriesOf(t.tokenId)).toBe(0);
  });

  it('non-ASCII UTF-8 text is accepted and kept', async () => {
    const t = await newPersonalToken(h);
    const r = await publish(h, t.token, event(h, { title: 'Überweisung fehlgeschlagen – 支付失败' }));
    expect(r.status).toBe(202);
    expect(r.body.title).toBe('Überweisung fehlgeschlagen – 支付失败');
  });

  it('an empty body is a 400 on the body as a whole', async () => {
    const t = await newPersonalToken(h);
    const r = await post(t.token, { rawBody: '', headers: JSON_CT });
    expectProblem(r, 400, 'validation-failed');
    expect(pairs(r)).toEqual([':required']);
    expect(Object.keys(r.body.fieldErrors)).toEqual(['(body)']);
    expect(await deliveriesOf(t.tokenId)).toBe(0);
  });

  it.each([
    ['an array (no batches)', '[]'],
    ['an array holding an event', null],
    ['a string', '"event"'],
    ['a number', '42'],
    ['null', 'null'],
  ])('%s is 400 invalid_type on the body', async (_name, raw) => {
    const t = await newPersonalToken(h);
    const body = raw ?? JSON.stringify([event(h)]);
    const r = await post(t.token, { rawBody: body, headers: JSON_CT });
    expectProblem(r, 400, 'validation-failed');
    expect(pairs(r)).toEqual([':invalid_type']);
    expect(r.body.fieldErrors).toEqual({ '(body)': [expect.any(String)] });
    expect(await deliveriesOf(t.tokenId)).toBe(0);
  });
});

describe('token in the query string', () => {
  it.each(['token', 'access_token', 'api_key', 'Authorization', 'APIKEY', 'auth_token'])('?%s=... is refused with 400 token_in_query', async (param) => {
    const t = await newPersonalToken(h);
    const r = await http(h, 'POST', `/api/v1/events?${param}=${t.token}`, { token: t.token, body: event(h) });
    expectProblem(r, 400, 'validation-failed');
    expect(r.body.code).toBe('token_in_query');
    expect(r.body.errors.map((e: { code: string }) => e.code)).toEqual(['token_in_query']);
    expect(r.text).not.toContain(t.token);
    expect(await deliveriesOf(t.tokenId)).toBe(0);
  });

  it('is refused before authentication (even with no Authorization header)', async () => {
    const r = await http(h, 'GET', '/api/v1/event-types?token=svc-in-pers-abc');
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('token_in_query');
  });
});

describe('X-Request-Id', () => {
  it('a valid id is echoed in the header and in the body', async () => {
    const t = await newPersonalToken(h);
    const r = await publish(h, t.token, event(h), { 'x-request-id': 'Abc_123-xyz' });
    expect(r.status).toBe(202);
    expect(r.headers.get('x-request-id')).toBe('Abc_123-xyz');
    expect(r.body.requestId).toBe('Abc_123-xyz');
  });

  it('120 characters are accepted', async () => {
    const t = await newPersonalToken(h);
    const id = 'r'.repeat(120);
    const r = await publish(h, t.token, event(h), { 'x-request-id': id });
    expect(r.headers.get('x-request-id')).toBe(id);
    expect(r.body.requestId).toBe(id);
  });

  it.each([
    ['121 characters', 'r'.repeat(121)],
    ['a dot', 'abc.def'],
    ['a space', 'abc def'],
    ['a slash', 'abc/def'],
  ])('an id with %s is replaced by a generated req_ id', async (_why, id) => {
    const t = await newPersonalToken(h);
    const r = await publish(h, t.token, event(h), { 'x-request-id': id });
    expect(r.status).toBe(202);
    const got = r.headers.get('x-request-id')!;
    expect(got).not.toBe(id);
    expect(got).toMatch(/^req_[A-Za-z0-9_-]+$/);
    expect(got.length).toBeLessThanOrEqual(120);
    expect(r.body.requestId).toBe(got);
  });

  it('an absent id is generated, and error bodies carry the same id', async () => {
    const t = await newPersonalToken(h);
    const r = await publish(h, t.token, event(h, { title: '' }));
    expect(r.status).toBe(400);
    expect(r.headers.get('x-request-id')).toMatch(/^req_[A-Za-z0-9_-]+$/);
    expect(r.body.requestId).toBe(r.headers.get('x-request-id'));
  });

  it('each generated id is distinct', async () => {
    const a = await http(h, 'GET', '/api/v1/health');
    const b = await http(h, 'GET', '/api/v1/health');
    expect(a.headers.get('x-request-id')).not.toBe(b.headers.get('x-request-id'));
  });
});

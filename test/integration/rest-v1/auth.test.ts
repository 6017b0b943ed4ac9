// Bearer authentication on REST v1 (SPEC Authentication 1-3, 5-7, "Personal token lifecycle";
// inbound protocol 2, 3, 7) and the sender-only operations: read-back, resolve, supplement, and
// event-type introspection.
import { randomBytes, createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  event,
  http,
  newPersonalToken,
  newUser,
  operator,
  publish,
  startHarness,
  type Harness,
  type HttpResult,
  type TestToken,
} from '../../helpers/harness.js';

let h: Harness;
let errorsBase: string;
beforeAll(async () => {
  // A real port, so the default error-type base is `${baseUrl}/errors`.
  // The clock moves 91 days ahead and publishes: months of audit partitions ahead (PARTITION_MONTHS_AHEAD).
  h = await startHarness({ env: { PARTITION_MONTHS_AHEAD: '6' } });
  errorsBase = `${h.baseUrl}/errors`;
});
afterAll(async () => {
  await h?.close();
});

const HOUR = 60 * 60 * 1000;
const sql = (q: string, params: unknown[] = []) => h.svc.deps.orm.em.getConnection().execute(q, params) as Promise<any[]>;
const sha256 = (v: string) => createHash('sha256').update(v, 'utf8').digest('hex');
const urlSafe32 = () => randomBytes(24).toString('base64url');

/** POST /api/v1/events with a raw Authorization header (or none). */
const publishAuth = (authorization: string | undefined, body: unknown = event(h)) =>
  http(h, 'POST', '/api/v1/events', { body, headers: authorization === undefined ? {} : { authorization } });

function expect401(r: HttpResult, code: string, secret?: string) {
  expect(r.status).toBe(401);
  expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  // Exact challenge per case (no credentials vs a bad bearer token): test/integration/security/edge.test.ts.
  expect(r.headers.get('www-authenticate')).toMatch(/^Bearer realm="fluxdesk"(?:, error="invalid_token")?$/);
  expect(r.body).toMatchObject({ type: `${errorsBase}/unauthorized`, title: 'Unauthorized', status: 401, code, instance: expect.any(String) });
  expect(r.body.requestId).toBe(r.headers.get('x-request-id'));
  if (secret !== undefined) expectNoSecret(r, secret);
}

/** The token value appears in no response body or header. */
function expectNoSecret(r: HttpResult, secret: string) {
  expect(r.text).not.toContain(secret);
  for (const [name, value] of r.headers) expect(`${name}: ${value}`).not.toContain(secret);
}

describe('401 codes (Authentication 3)', () => {
  it('no Authorization header: missing_or_invalid_authorization', async () => {
    expect401(await publishAuth(undefined), 'missing_or_invalid_authorization');
  });

  it('another scheme: missing_or_invalid_authorization', async () => {
    const t = await newPersonalToken(h);
    expect401(await publishAuth('Basic x'), 'missing_or_invalid_authorization');
    expect401(await publishAuth(`Token ${t.token}`), 'missing_or_invalid_authorization', t.token);
  });

  it('not exactly "Bearer <value>" (two spaces, lowercase scheme, extra parts): missing_or_invalid_authorization', async () => {
    const t = await newPersonalToken(h);
    expect401(await publishAuth(`Bearer  ${t.token}`), 'missing_or_invalid_authorization', t.token);
    expect401(await publishAuth(`bearer ${t.token}`), 'missing_or_invalid_authorization', t.token);
    expect401(await publishAuth(`Bearer ${t.token} extra`), 'missing_or_invalid_authorization', t.token);
    expect401(await publishAuth('Bearer'), 'missing_or_invalid_authorization');
    // The exact form works with the same token.
    expect((await publishAuth(`Bearer ${t.token}`)).status).toBe(202);
  });

  it('a value that is no fluxdesk token: invalid_token_format', async () => {
    expect401(await publishAuth('Bearer garbage'), 'invalid_token_format', 'garbage');
    // Right prefix, wrong length / alphabet.
    expect401(await publishAuth(`Bearer svc-in-pers-${urlSafe32().slice(1)}`), 'invalid_token_format');
    expect401(await publishAuth(`Bearer svc-in-pers-${urlSafe32().slice(1)}!`), 'invalid_token_format');
  });

  it('a well-formed unknown personal token: token_not_found', async () => {
    const unknown = `svc-in-pers-${urlSafe32()}`;
    expect401(await publishAuth(`Bearer ${unknown}`), 'token_not_found', unknown);
  });

  it('an agent token on /api/v1/events: token_mismatch', async () => {
    const u = await newUser(h);
    const agent = await operator<{ token: string }>(h, 'agent_tokens.create', { email: u.email });
    expect(agent.token.startsWith('sk-svc-')).toBe(true);
    expect401(await publishAuth(`Bearer ${agent.token}`), 'token_mismatch', agent.token);
  });

  it('a syntactically valid tools-token on /api/v1/events: token_mismatch', async () => {
    const tools = `svc-tools-${urlSafe32()}`;
    expect401(await publishAuth(`Bearer ${tools}`), 'token_mismatch', tools);
  });

  it.each(['revoked', 'disabled', 'auto_expired'])('a %s token: token_revoked', async (status) => {
    const t = await newPersonalToken(h);
    expect((await publish(h, t.token, event(h))).status).toBe(202);
    await sql(`update inbound_tokens set status = ? where id = ?`, [status, t.tokenId]);
    expect401(await publish(h, t.token, event(h)), 'token_revoked', t.token);
    // Revocation is immediate on every operation of the token.
    expect401(await http(h, 'GET', '/api/v1/event-types', { token: t.token }), 'token_revoked', t.token);
  });

  it('a token whose owner was offboarded: token_revoked', async () => {
    const t = await newPersonalToken(h);
    expect((await publish(h, t.token, event(h))).status).toBe(202);
    await sql(`update users set status = 'offboarded' where id = ?`, [t.user.userId]);
    expect401(await publish(h, t.token, event(h)), 'token_revoked', t.token);
  });

  it('a rejected request stores nothing', async () => {
    const t = await newPersonalToken(h);
    await sql(`update inbound_tokens set status = 'revoked' where id = ?`, [t.tokenId]);
    expect401(await publish(h, t.token, event(h)), 'token_revoked');
    expect(await sql(`select id from deliveries where token_id = ?`, [t.tokenId])).toEqual([]);
  });
});

describe('rotation overlap (Authentication 5, Limits: 24 h)', () => {
  it('the previous value works until the overlap ends, then gets token_revoked; the new value keeps working', async () => {
    const t = await newPersonalToken(h);
    const first = await publish(h, t.token, event(h));
    expect(first.status).toBe(202);

    const rotated = `svc-in-pers-${urlSafe32()}`;
    const overlapEnd = new Date(h.clock.now().getTime() + 24 * HOUR);
    await sql(`update inbound_tokens set token_hash = ?, prior_token_hash = ?, prior_valid_until = ?::timestamptz, rotated_at = ?::timestamptz where id = ?`, [
      sha256(rotated),
      sha256(t.token),
      overlapEnd.toISOString(),
      h.clock.now().toISOString(),
      t.tokenId,
    ]);

    expect((await publish(h, rotated, event(h))).status).toBe(202);
    expect((await publish(h, t.token, event(h))).status).toBe(202);

    h.clock.advance(24 * HOUR - 1000);
    expect((await publish(h, t.token, event(h))).status).toBe(202);

    h.clock.advance(2000); // now 24 h + 1 s after the rotation
    expect401(await publish(h, t.token, event(h)), 'token_revoked', t.token);

    const again = await publish(h, rotated, event(h));
    expect(again.status).toBe(202);
    expectNoSecret(again, rotated);
    // Same token id: the rotated value still reads back deliveries made with the old one.
    const read = await http(h, 'GET', `/api/v1/events/${first.body.deliveryId}`, { token: rotated });
    expect(read.status).toBe(200);
    expect(read.body.deliveryId).toBe(first.body.deliveryId);
  });
});

describe('token values never leak', () => {
  it('neither a success nor any error response carries the token', async () => {
    const t = await newPersonalToken(h);
    const responses = [
      await publish(h, t.token, event(h)),
      await publish(h, t.token, event(h, { title: '' })),
      await http(h, 'GET', '/api/v1/event-types', { token: t.token }),
      await http(h, 'POST', '/api/internal-os/integrations/inbound/personal/ping', { token: t.token, body: {} }),
      await publishAuth(`Bearer  ${t.token}`),
    ];
    expect(responses.map((r) => r.status)).toEqual([202, 400, 200, 200, 401]);
    for (const r of responses) expectNoSecret(r, t.token);
  });
});

describe('read-back, resolve, supplement (original sender only)', () => {
  async function delivered(over: Record<string, unknown> = {}): Promise<{ t: TestToken; id: string; ev: Record<string, unknown> }> {
    const t = await newPersonalToken(h);
    const ev = event(h, { summary: 'first text', external_status: 'firing', ...over });
    const r = await publish(h, t.token, ev);
    expect(r.status).toBe(202);
    return { t, id: r.body.deliveryId, ev };
  }

  it('GET returns the delivery with its supplements', async () => {
    const { t, id, ev } = await delivered();
    const r = await http(h, 'GET', `/api/v1/events/${id}`, { token: t.token, headers: { 'x-request-id': 'readback-1' } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      deliveryId: id,
      eventType: ev.event_type,
      title: ev.title,
      summary: 'first text',
      externalStatus: 'firing',
      resolvedAt: null,
      resolutionNote: null,
      fireCount: 1,
      recipientUserId: t.user.userId,
      supplements: [],
      requestId: 'readback-1',
    });
  });

  it('supplements append in order with 201; the original title and summary never change', async () => {
    const { t, id, ev } = await delivered();
    const s1 = await http(h, 'POST', `/api/v1/events/${id}/supplement`, { token: t.token, body: { markdown_body: 'Root cause: expired certificate.' } });
    expect(s1.status).toBe(201);
    expect(s1.body.supplements).toHaveLength(1);
    h.clock.advance(1000);
    const s2 = await http(h, 'POST', `/api/v1/events/${id}/supplement`, { token: t.token, body: { markdown_body: 'Fixed by rotating it.' } });
    expect(s2.status).toBe(201);
    expect(s2.body.title).toBe(ev.title);
    expect(s2.body.supplements.map((s: { markdownBody: string }) => s.markdownBody)).toEqual(['Root cause: expired certificate.', 'Fixed by rotating it.']);
    for (const s of s2.body.supplements) expect(s).toEqual({ id: expect.any(String), markdownBody: expect.any(String), createdAt: expect.any(String) });
    expect(Date.parse(s2.body.supplements[1].createdAt)).toBeGreaterThan(Date.parse(s2.body.supplements[0].createdAt));

    // A repeat of the event does not change the original text either.
    expect((await publish(h, t.token, { ...ev, title: 'New title', summary: 'new text' })).status).toBe(200);
    const r = await http(h, 'GET', `/api/v1/events/${id}`, { token: t.token });
    expect(r.body).toMatchObject({ title: ev.title, summary: 'first text', fireCount: 2 });
    expect(r.body.supplements.map((s: { id: string }) => s.id)).toEqual(s2.body.supplements.map((s: { id: string }) => s.id));
  });

  it('supplement markdown_body: 8000 accepted, 8001 / empty / missing refused with 400', async () => {
    const { t, id } = await delivered();
    const sup = (body: unknown) => http(h, 'POST', `/api/v1/events/${id}/supplement`, { token: t.token, body });
    expect((await sup({ markdown_body: 'x'.repeat(8000) })).status).toBe(201);
    const long = await sup({ markdown_body: 'x'.repeat(8001) });
    expect(long.status).toBe(400);
    expect(long.body).toMatchObject({ type: `${errorsBase}/validation-failed`, errors: [{ field: 'markdown_body', code: 'too_long' }] });
    const empty = await sup({ markdown_body: '' });
    expect(empty.status).toBe(400);
    expect(empty.body.errors).toEqual([expect.objectContaining({ field: 'markdown_body', code: 'required' })]);
    const missing = await sup({});
    expect(missing.status).toBe(400);
    expect(missing.body.errors).toEqual([expect.objectContaining({ field: 'markdown_body', code: 'required' })]);
    const r = await http(h, 'GET', `/api/v1/events/${id}`, { token: t.token });
    expect(r.body.supplements).toHaveLength(1);
  });

  it('resolve stamps resolvedAt and the note, sets externalStatus resolved, and is idempotent', async () => {
    const { t, id } = await delivered();
    const before = h.clock.now().getTime();
    const r1 = await http(h, 'POST', `/api/v1/events/${id}/resolve`, { token: t.token, body: { resolution_note: 'Fixed by rollback' } });
    expect(r1.status).toBe(200);
    expect(r1.body).toMatchObject({ deliveryId: id, externalStatus: 'resolved', resolutionNote: 'Fixed by rollback' });
    const resolvedAt = Date.parse(r1.body.resolvedAt);
    expect(resolvedAt).toBeGreaterThanOrEqual(before);
    expect(resolvedAt).toBeLessThanOrEqual(h.clock.now().getTime());

    h.clock.advance(60_000);
    const r2 = await http(h, 'POST', `/api/v1/events/${id}/resolve`, { token: t.token, body: { resolution_note: 'Another note' } });
    expect(r2.status).toBe(200);
    expect(r2.body).toMatchObject({ resolvedAt: r1.body.resolvedAt, resolutionNote: 'Fixed by rollback', externalStatus: 'resolved' });

    const read = await http(h, 'GET', `/api/v1/events/${id}`, { token: t.token });
    expect(read.body).toMatchObject({ resolvedAt: r1.body.resolvedAt, resolutionNote: 'Fixed by rollback', externalStatus: 'resolved' });
  });

  it('resolve takes no body at all', async () => {
    const { t, id } = await delivered();
    const r = await http(h, 'POST', `/api/v1/events/${id}/resolve`, { token: t.token });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ externalStatus: 'resolved', resolutionNote: null });
    expect(r.body.resolvedAt).not.toBeNull();
  });

  it('resolution_note: 500 accepted, 501 refused with 400', async () => {
    const a = await delivered();
    const long = await http(h, 'POST', `/api/v1/events/${a.id}/resolve`, { token: a.t.token, body: { resolution_note: 'n'.repeat(501) } });
    expect(long.status).toBe(400);
    expect(long.body).toMatchObject({ type: `${errorsBase}/validation-failed`, errors: [{ field: 'resolution_note', code: 'too_long' }] });
    // Nothing was stamped.
    expect((await http(h, 'GET', `/api/v1/events/${a.id}`, { token: a.t.token })).body.resolvedAt).toBeNull();
    const ok = await http(h, 'POST', `/api/v1/events/${a.id}/resolve`, { token: a.t.token, body: { resolution_note: 'n'.repeat(500) } });
    expect(ok.status).toBe(200);
    expect(ok.body.resolutionNote).toHaveLength(500);
  });

  it("another user's token gets 403 not_sender on read-back, resolve and supplement, and changes nothing", async () => {
    const { id } = await delivered();
    const other = await newPersonalToken(h);
    const calls = [
      await http(h, 'GET', `/api/v1/events/${id}`, { token: other.token }),
      await http(h, 'POST', `/api/v1/events/${id}/resolve`, { token: other.token, body: {} }),
      await http(h, 'POST', `/api/v1/events/${id}/supplement`, { token: other.token, body: { markdown_body: 'not mine' } }),
    ];
    for (const r of calls) {
      expect(r.status).toBe(403);
      expect(r.body).toMatchObject({ type: `${errorsBase}/forbidden`, status: 403, code: 'not_sender' });
    }
    const rows = await sql(`select resolved_at from deliveries where id = ?`, [id]);
    expect(rows).toEqual([{ resolved_at: null }]);
    expect(await sql(`select id from delivery_supplements where delivery_id = ?`, [id])).toEqual([]);
  });

  it('a second token of the same owner is not the original sender either', async () => {
    const { t, id } = await delivered();
    const sibling = await newPersonalToken(h, { user: t.user });
    const r = await http(h, 'GET', `/api/v1/events/${id}`, { token: sibling.token });
    expect(r.status).toBe(403);
    expect(r.body.code).toBe('not_sender');
  });

  it('an unknown delivery id is 404 on all three', async () => {
    const t = await newPersonalToken(h);
    const unknown = '6f1c2a4e-8b7d-4c3e-9a1f-2b3c4d5e6f70';
    const calls = [
      await http(h, 'GET', `/api/v1/events/${unknown}`, { token: t.token }),
      await http(h, 'POST', `/api/v1/events/${unknown}/resolve`, { token: t.token, body: {} }),
      await http(h, 'POST', `/api/v1/events/${unknown}/supplement`, { token: t.token, body: { markdown_body: 'x' } }),
    ];
    for (const r of calls) {
      expect(r.status).toBe(404);
      expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(r.body).toMatchObject({ status: 404, code: 'not_found' });
    }
  });

  it('a malformed delivery id is 400 on all three', async () => {
    const t = await newPersonalToken(h);
    const calls = [
      await http(h, 'GET', `/api/v1/events/not-a-uuid`, { token: t.token }),
      await http(h, 'POST', `/api/v1/events/not-a-uuid/resolve`, { token: t.token, body: {} }),
      await http(h, 'POST', `/api/v1/events/not-a-uuid/supplement`, { token: t.token, body: { markdown_body: 'x' } }),
    ];
    for (const r of calls) {
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ type: `${errorsBase}/validation-failed`, errors: [{ field: 'delivery_id', code: 'invalid_format' }] });
    }
  });

  it('these endpoints need a token too', async () => {
    const { id } = await delivered();
    expect401(await http(h, 'GET', `/api/v1/events/${id}`), 'missing_or_invalid_authorization');
    expect401(await http(h, 'POST', `/api/v1/events/${id}/resolve`, { body: {} }), 'missing_or_invalid_authorization');
  });
});

describe('GET /api/v1/event-types', () => {
  it('names the personal integrator and counts the event types seen', async () => {
    const t = await newPersonalToken(h);
    const tag = randomBytes(4).toString('hex');
    const typeA = `personal.types-${tag}.a`;
    const typeB = `personal.types-${tag}.b`;
    for (const type of [typeA, typeA, typeB]) expect((await publish(h, t.token, event(h, { event_type: type }))).status).toBe(202);
    // A repeat of the same event is one delivery, not two.
    const ev = event(h, { event_type: typeB });
    await publish(h, t.token, ev);
    await publish(h, t.token, ev);

    const r = await http(h, 'GET', '/api/v1/event-types', { token: t.token, headers: { 'x-request-id': 'types-1' } });
    expect(r.status).toBe(200);
    expect(r.body.yourIntegrator).toEqual({ slug: 'personal', allowedEventPrefix: 'personal.' });
    expect(r.body.requestId).toBe('types-1');
    const mine = (r.body.yourEventTypes as Array<{ eventType: string; count: number; lastSeenAt: string | null }>).filter((x) => x.eventType.includes(tag));
    expect(mine.map((x) => [x.eventType, x.count])).toEqual([
      [typeA, 2],
      [typeB, 2],
    ]);
    for (const x of mine) expect(x.lastSeenAt).not.toBeNull();
    expect(Array.isArray(r.body.fluxdeskInternalTypes)).toBe(true);
  });

  it('counts only the last 90 days', async () => {
    const t = await newPersonalToken(h);
    const type = `personal.window-${randomBytes(4).toString('hex')}`;
    expect((await publish(h, t.token, event(h, { event_type: type }))).status).toBe(202);
    const seen = async () =>
      ((await http(h, 'GET', '/api/v1/event-types', { token: t.token })).body.yourEventTypes as Array<{ eventType: string }>).some((x) => x.eventType === type);
    expect(await seen()).toBe(true);
    h.clock.advance(91 * 24 * HOUR);
    expect(await seen()).toBe(false);
  });

  it('integrator_slug of the own integrator is allowed; of another integrator, 403 for a personal token', async () => {
    const t = await newPersonalToken(h);
    const own = await http(h, 'GET', '/api/v1/event-types?integrator_slug=personal', { token: t.token });
    expect(own.status).toBe(200);
    expect(own.body.yourIntegrator.slug).toBe('personal');
    const other = await http(h, 'GET', '/api/v1/event-types?integrator_slug=acme', { token: t.token });
    expect(other.status).toBe(403);
    expect(other.body).toMatchObject({ type: `${errorsBase}/forbidden`, status: 403 });
  });

  it('any valid inbound token; an agent token is token_mismatch', async () => {
    const u = await newUser(h);
    const agent = await operator<{ token: string }>(h, 'agent_tokens.create', { email: u.email });
    expect401(await http(h, 'GET', '/api/v1/event-types', { token: agent.token }), 'token_mismatch', agent.token);
  });
});

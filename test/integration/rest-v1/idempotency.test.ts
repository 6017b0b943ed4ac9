// Idempotency-Key on the REST v1 mutations (SPEC Limits "Idempotency-Key"; inbound protocol 9
// "Idempotency-Key outcomes"; the state machine of src/infra/idempotency/idempotency-store.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { event, http, newPersonalToken, publish, startHarness, type Harness } from '../../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const sql = (q: string, params: unknown[] = []) => h.svc.deps.orm.em.getConnection().execute(q, params);
const deliveriesOf = (tokenId: string, eventId: unknown) =>
  sql(`select id, fire_count from deliveries where token_id = ? and event_id = ?`, [tokenId, eventId]) as Promise<Array<{ id: string; fire_count: number }>>;
const supplementCount = async (deliveryId: string) =>
  Number(((await sql(`select count(*)::int as n from delivery_supplements where delivery_id = ?`, [deliveryId])) as Array<{ n: number }>)[0]!.n);
const supplement = (token: string, deliveryId: string, body: unknown, headers?: Record<string, string>) =>
  http(h, 'POST', `/api/v1/events/${deliveryId}/supplement`, { token, body, headers });
const key = (tag: string) => `${tag}-${Math.random().toString(36).slice(2)}`;

describe('Idempotency-Key on POST /api/v1/events', () => {
  it('same key and same body replays the stored response: same status, identical body, Idempotent-Replayed: true, one delivery, fireCount not bumped', async () => {
    const t = await newPersonalToken(h);
    const ev = event(h);
    const k = key('pub');
    const first = await publish(h, t.token, ev, { 'idempotency-key': k });
    expect(first.status).toBe(202);
    expect(first.headers.get('idempotent-replayed')).toBeNull();

    // Key order does not matter (compared as JSON).
    const reordered = Object.fromEntries(Object.entries(ev).reverse());
    const second = await publish(h, t.token, reordered, { 'idempotency-key': k });
    expect(second.status).toBe(202);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.text).toBe(first.text);
    expect(second.body.requestId).toBe(first.body.requestId);
    expect(second.body).toMatchObject({ deduped: false, fireCount: 1 });

    const rows = await deliveriesOf(t.tokenId, ev.event_id);
    expect(rows).toEqual([{ id: first.body.deliveryId, fire_count: 1 }]);
  });

  it('without a key a repeat is a dedup (200, fireCount 2); with a new key likewise', async () => {
    const t = await newPersonalToken(h);
    const ev = event(h);
    const first = await publish(h, t.token, ev, { 'idempotency-key': key('a') });
    const second = await publish(h, t.token, ev, { 'idempotency-key': key('b') });
    expect([first.status, second.status]).toEqual([202, 200]);
    expect(second.headers.get('idempotent-replayed')).toBeNull();
    expect(second.body).toMatchObject({ deliveryId: first.body.deliveryId, deduped: true, fireCount: 2 });
  });

  it('same key with a different body gives 409 problem idempotency_key_reused and executes nothing', async () => {
    const t = await newPersonalToken(h);
    const ev = event(h);
    const k = key('reuse');
    expect((await publish(h, t.token, ev, { 'idempotency-key': k })).status).toBe(202);
    const other = event(h);
    const r = await publish(h, t.token, other, { 'idempotency-key': k });
    expect(r.status).toBe(409);
    expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(r.body).toMatchObject({ status: 409, code: 'idempotency_key_reused', instance: '/api/v1/events', requestId: r.headers.get('x-request-id') });
    expect(typeof r.body.type).toBe('string');
    expect(await deliveriesOf(t.tokenId, other.event_id)).toEqual([]);
  });

  it('the key is scoped per token: another token reusing it executes independently', async () => {
    const a = await newPersonalToken(h);
    const b = await newPersonalToken(h);
    const ev = event(h);
    const k = key('scoped');
    const ra = await publish(h, a.token, ev, { 'idempotency-key': k });
    const rb = await publish(h, b.token, ev, { 'idempotency-key': k });
    expect([ra.status, rb.status]).toEqual([202, 202]);
    expect(rb.headers.get('idempotent-replayed')).toBeNull();
    expect(rb.body.deliveryId).not.toBe(ra.body.deliveryId);
    expect(rb.body.recipientUserId).toBe(b.user.userId);
    // A different body from the other token is not a conflict either.
    const rb2 = await publish(h, b.token, event(h), { 'idempotency-key': key('scoped-2') });
    expect(rb2.status).toBe(202);
  });

  it('a 200-char key is accepted; a 201-char key gives 400 on field Idempotency-Key and executes nothing', async () => {
    const t = await newPersonalToken(h);
    const ok = await publish(h, t.token, event(h), { 'idempotency-key': 'k'.repeat(200) });
    expect(ok.status).toBe(202);
    const ev = event(h);
    const bad = await publish(h, t.token, ev, { 'idempotency-key': 'k'.repeat(201) });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(bad.body.fieldErrors).toHaveProperty('Idempotency-Key');
    expect(bad.body.errors).toEqual([expect.objectContaining({ field: 'Idempotency-Key', code: 'invalid_format' })]);
    expect(await deliveriesOf(t.tokenId, ev.event_id)).toEqual([]);
  });

  it('a key with a non-visible character (space) gives 400 invalid_format', async () => {
    const t = await newPersonalToken(h);
    const r = await publish(h, t.token, event(h), { 'idempotency-key': 'has space' });
    expect(r.status).toBe(400);
    expect(r.body.errors).toEqual([expect.objectContaining({ field: 'Idempotency-Key', code: 'invalid_format' })]);
  });

  it('validation failures are not stored: a bad body with key K, then a good body with K executes', async () => {
    const t = await newPersonalToken(h);
    const k = key('fix');
    const good = event(h);
    const bad = await publish(h, t.token, { ...good, severity: 'loud', title: '' }, { 'idempotency-key': k });
    expect(bad.status).toBe(400);
    const fixed = await publish(h, t.token, good, { 'idempotency-key': k });
    expect(fixed.status).toBe(202);
    expect(fixed.headers.get('idempotent-replayed')).toBeNull();
    expect(await deliveriesOf(t.tokenId, good.event_id)).toHaveLength(1);
    // Now the key is bound to the good body.
    const again = await publish(h, t.token, good, { 'idempotency-key': k });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });

  it('concurrent publishes with one key execute once: fireCount stays 1', async () => {
    const t = await newPersonalToken(h);
    const ev = event(h);
    const k = key('pub-conc');
    const rs = await Promise.all(Array.from({ length: 10 }, () => publish(h, t.token, ev, { 'idempotency-key': k })));
    for (const r of rs) {
      if (r.status === 409) {
        expect(r.body.code).toBe('idempotency_in_flight');
        expect(r.headers.get('retry-after')).toBe('1');
      } else {
        expect(r.status).toBe(202);
      }
    }
    const executed = rs.filter((r) => r.status === 202 && r.headers.get('idempotent-replayed') === null);
    expect(executed).toHaveLength(1);
    expect(await deliveriesOf(t.tokenId, ev.event_id)).toEqual([{ id: executed[0]!.body.deliveryId, fire_count: 1 }]);
  });
});

describe('Idempotency-Key on POST /api/v1/events/{deliveryId}/supplement', () => {
  it('same key and body replays the 201 with an identical body and stores one supplement', async () => {
    const t = await newPersonalToken(h);
    const d = await publish(h, t.token, event(h));
    const k = key('sup');
    const first = await supplement(t.token, d.body.deliveryId, { markdown_body: 'Root cause: expired certificate.' }, { 'idempotency-key': k });
    expect(first.status).toBe(201);
    expect(first.body.supplements).toHaveLength(1);
    const second = await supplement(t.token, d.body.deliveryId, { markdown_body: 'Root cause: expired certificate.' }, { 'idempotency-key': k });
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.text).toBe(first.text);
    expect(await supplementCount(d.body.deliveryId)).toBe(1);
  });

  it('same key with a different markdown_body gives 409 idempotency_key_reused', async () => {
    const t = await newPersonalToken(h);
    const d = await publish(h, t.token, event(h));
    const k = key('sup-reuse');
    expect((await supplement(t.token, d.body.deliveryId, { markdown_body: 'one' }, { 'idempotency-key': k })).status).toBe(201);
    const r = await supplement(t.token, d.body.deliveryId, { markdown_body: 'two' }, { 'idempotency-key': k });
    expect(r.status).toBe(409);
    expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(r.body.code).toBe('idempotency_key_reused');
    expect(await supplementCount(d.body.deliveryId)).toBe(1);
  });

  it('ten concurrent requests with one key never both execute: one supplement row; the rest get 409 idempotency_in_flight with Retry-After or a replay', async () => {
    const t = await newPersonalToken(h);
    const d = await publish(h, t.token, event(h));
    const k = key('sup-conc');
    const rs = await Promise.all(
      Array.from({ length: 10 }, () => supplement(t.token, d.body.deliveryId, { markdown_body: 'once only' }, { 'idempotency-key': k })),
    );
    const executed = rs.filter((r) => r.status === 201 && r.headers.get('idempotent-replayed') === null);
    expect(executed).toHaveLength(1);
    for (const r of rs) {
      if (r === executed[0]) continue;
      if (r.status === 201) {
        expect(r.headers.get('idempotent-replayed')).toBe('true');
        expect(r.text).toBe(executed[0]!.text);
      } else {
        expect(r.status).toBe(409);
        expect(r.body.code).toBe('idempotency_in_flight');
        expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      }
    }
    expect(await supplementCount(d.body.deliveryId)).toBe(1);
  });

  it('a failed operation is not stored: a 403 for a non-sender leaves the key free for the sender', async () => {
    const owner = await newPersonalToken(h);
    const other = await newPersonalToken(h);
    const d = await publish(h, owner.token, event(h));
    const k = key('sup-fail');
    // Keys are per token, so this shows the failure did not poison the other token's key either.
    const denied = await supplement(other.token, d.body.deliveryId, { markdown_body: 'x' }, { 'idempotency-key': k });
    expect(denied.status).toBe(403);
    const again = await supplement(other.token, d.body.deliveryId, { markdown_body: 'x' }, { 'idempotency-key': k });
    expect(again.status).toBe(403);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect((await supplement(owner.token, d.body.deliveryId, { markdown_body: 'x' }, { 'idempotency-key': k })).status).toBe(201);
    expect(await supplementCount(d.body.deliveryId)).toBe(1);
  });

  it('validation failures are not stored: an empty markdown_body with key K, then a valid one with K executes', async () => {
    const t = await newPersonalToken(h);
    const d = await publish(h, t.token, event(h));
    const k = key('sup-fix');
    const bad = await supplement(t.token, d.body.deliveryId, { markdown_body: '' }, { 'idempotency-key': k });
    expect(bad.status).toBe(400);
    const good = await supplement(t.token, d.body.deliveryId, { markdown_body: 'fixed' }, { 'idempotency-key': k });
    expect(good.status).toBe(201);
    expect(good.headers.get('idempotent-replayed')).toBeNull();
    expect(await supplementCount(d.body.deliveryId)).toBe(1);
  });
});

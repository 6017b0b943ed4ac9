import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeliveryViewSchema } from '../../../src/domain/events/delivery.view.js';
import { event, http, newPersonalToken, publish, startHarness, type Harness } from '../../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

describe('POST /api/v1/events', () => {
  it('accepts a new event with 202, lands one inbox row and audits it', async () => {
    const t = await newPersonalToken(h);
    const ev = event(h, { summary: 'see CI', tone: 'negative', external_status: 'firing', locale: 'en' });
    const r = await publish(h, t.token, ev, { 'x-request-id': 'my-req_1' });
    expect(r.status).toBe(202);
    expect(r.headers.get('x-request-id')).toBe('my-req_1');
    expect(DeliveryViewSchema.parse(r.body)).toMatchObject({
      eventType: ev.event_type,
      severity: 'warn',
      tone: 'negative',
      summary: 'see CI',
      externalStatus: 'firing',
      locale: 'en',
      fireCount: 1,
      deduped: false,
      ok: true,
      pushed: false,
      requestId: 'my-req_1',
      recipientUserId: t.user.userId,
      resolvedAt: null,
      supplements: [],
    });
    const conn = h.svc.deps.orm.em.getConnection();
    const inbox = await conn.execute(`select user_id, title from notifications where delivery_id = ?`, [r.body.deliveryId]);
    expect(inbox).toEqual([{ user_id: t.user.userId, title: ev.title }]);
    const audit = await conn.execute(`select action from audit_log where target_id = ?`, [r.body.deliveryId]);
    expect(audit).toEqual([{ action: 'inbound.event.received' }]);
  });

  it('dedups a repeat with 200, increments fireCount and updates the inbox row but not the original text', async () => {
    const t = await newPersonalToken(h);
    const ev = event(h, { external_status: 'firing' });
    const first = await publish(h, t.token, ev);
    const second = await publish(h, t.token, { ...ev, title: 'Build fixed', external_status: 'resolved' });
    expect(first.status).toBe(202);
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ deliveryId: first.body.deliveryId, fireCount: 2, deduped: true, title: ev.title, externalStatus: 'resolved' });
    const conn = h.svc.deps.orm.em.getConnection();
    const inbox = await conn.execute(`select title from notifications where delivery_id = ?`, [first.body.deliveryId]);
    expect(inbox).toEqual([{ title: 'Build fixed' }]);
  });

  it('N concurrent identical posts give one delivery, fireCount N and exactly one 202', async () => {
    const t = await newPersonalToken(h);
    const ev = event(h);
    const n = 20;
    const rs = await Promise.all(Array.from({ length: n }, () => publish(h, t.token, ev)));
    expect(rs.filter((r) => r.status === 202)).toHaveLength(1);
    expect(rs.filter((r) => r.status === 200)).toHaveLength(n - 1);
    expect(new Set(rs.map((r) => r.body.deliveryId)).size).toBe(1);
    expect(Math.max(...rs.map((r) => r.body.fireCount))).toBe(n);
  });

  it('the same event_id on another token is another delivery', async () => {
    const a = await newPersonalToken(h);
    const b = await newPersonalToken(h);
    const ev = event(h);
    const ra = await publish(h, a.token, ev);
    const rb = await publish(h, b.token, ev);
    expect([ra.status, rb.status]).toEqual([202, 202]);
    expect(ra.body.deliveryId).not.toBe(rb.body.deliveryId);
  });

  it('health answers without auth', async () => {
    const r = await http(h, 'GET', '/api/v1/health');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ ok: true, version: '0.25.935' });
    expect(r.headers.get('x-request-id')).toMatch(/^req_[A-Za-z0-9_-]+$/);
  });
});

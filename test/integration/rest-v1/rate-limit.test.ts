// 60 events per minute per token, sliding window (SPEC Limits; Errors "429 ... X-RateLimit-*";
// inbound protocol 9 "Rate limit"). Time moves with the harness clock; nothing sleeps.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { event, newPersonalToken, publish, publishLegacy, startHarness, type Harness, type HttpResult } from '../../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const nowUnix = () => h.clock.now().getTime() / 1000;

function expectRateHeaders(r: HttpResult, remaining: number): void {
  expect(r.headers.get('x-ratelimit-limit')).toBe('60');
  expect(r.headers.get('x-ratelimit-remaining')).toBe(String(remaining));
  const reset = Number(r.headers.get('x-ratelimit-reset'));
  expect(Number.isInteger(reset)).toBe(true);
  // Unix seconds: at most one window (plus rounding) ahead.
  expect(reset).toBeGreaterThan(nowUnix());
  expect(reset).toBeLessThanOrEqual(Math.ceil(nowUnix()) + 61);
}

describe('per-token rate limit on POST /api/v1/events', () => {
  it('60 per minute: headers count down, the 61st is a 429 problem with Retry-After and X-RateLimit-*, a minute later it is allowed again', async () => {
    const t = await newPersonalToken(h);
    let firstReset = 0;
    for (let i = 0; i < 60; i++) {
      const r = await publish(h, t.token, event(h));
      expect(r.status).toBe(202);
      expectRateHeaders(r, 59 - i);
      if (i === 0) firstReset = Number(r.headers.get('x-ratelimit-reset'));
      // Reset is when the oldest counted hit leaves the window: it stays put while the window fills.
      expect(Number(r.headers.get('x-ratelimit-reset'))).toBe(firstReset);
    }
    const ev = event(h);
    const over = await publish(h, t.token, ev);
    expect(over.status).toBe(429);
    expect(over.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(over.body).toMatchObject({ status: 429, code: 'rate_limited', instance: '/api/v1/events' });
    expect(over.body.type).toMatch(/\/rate-limited$/);
    const retryAfter = Number(over.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expectRateHeaders(over, 0);
    expect(Number(over.headers.get('x-ratelimit-reset'))).toBe(firstReset);
    // Nothing was stored for the refused event.
    const rows = await h.svc.deps.orm.em.getConnection().execute(`select id from deliveries where token_id = ? and event_id = ?`, [t.tokenId, ev.event_id]);
    expect(rows).toEqual([]);

    h.clock.advance(60_001);
    const later = await publish(h, t.token, event(h));
    expect(later.status).toBe(202);
    expect(later.headers.get('x-ratelimit-limit')).toBe('60');
    expect(Number(later.headers.get('x-ratelimit-remaining'))).toBeGreaterThanOrEqual(0);
  });

  it('other tokens are unaffected by one token hitting its limit', async () => {
    const a = await newPersonalToken(h);
    const b = await newPersonalToken(h);
    for (let i = 0; i < 60; i++) expect((await publish(h, a.token, event(h))).status).toBe(202);
    expect((await publish(h, a.token, event(h))).status).toBe(429);
    const rb = await publish(h, b.token, event(h));
    expect(rb.status).toBe(202);
    expectRateHeaders(rb, 59);
  });

  it('every authenticated call counts, including ones rejected by validation', async () => {
    const t = await newPersonalToken(h);
    const bad = await publish(h, t.token, { ...event(h), severity: 'loud' });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('x-ratelimit-remaining')).toBe('59');
    const good = await publish(h, t.token, event(h));
    expect(good.status).toBe(202);
    expect(good.headers.get('x-ratelimit-remaining')).toBe('58');
  });

  it('the window slides: after the limit, hits free up as they age out', async () => {
    const t = await newPersonalToken(h);
    for (let i = 0; i < 30; i++) expect((await publish(h, t.token, event(h))).status).toBe(202);
    h.clock.advance(30_000);
    for (let i = 0; i < 30; i++) expect((await publish(h, t.token, event(h))).status).toBe(202);
    expect((await publish(h, t.token, event(h))).status).toBe(429);
    // 30.001 s later the first 30 hits are older than a minute; the second 30 still count.
    h.clock.advance(30_001);
    const r = await publish(h, t.token, event(h));
    expect(r.status).toBe(202);
    expect(r.headers.get('x-ratelimit-remaining')).toBe('29');
  });
});

describe('the older endpoint shares the per-token window', () => {
  it('30 on /api/v1/events + 30 on the legacy endpoint exhaust the budget; both then answer 429', async () => {
    const t = await newPersonalToken(h);
    for (let i = 0; i < 30; i++) expect((await publish(h, t.token, event(h))).status).toBe(202);
    for (let i = 0; i < 30; i++) {
      const r = await publishLegacy(h, t.token, event(h));
      expect(r.status).toBe(202);
      expect(r.headers.get('x-ratelimit-remaining')).toBe(String(29 - i));
    }
    const legacy = await publishLegacy(h, t.token, event(h));
    expect(legacy.status).toBe(429);
    expect(legacy.headers.get('content-type')).toMatch(/^application\/json/);
    expect(legacy.body).toMatchObject({ error: 'rate_limited' });
    expect(Number(legacy.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(legacy.headers.get('x-ratelimit-limit')).toBe('60');
    expect(legacy.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(legacy.headers.get('x-ratelimit-reset')).toMatch(/^\d+$/);

    const v1 = await publish(h, t.token, event(h));
    expect(v1.status).toBe(429);
    expect(v1.body.code).toBe('rate_limited');

    h.clock.advance(60_001);
    expect((await publishLegacy(h, t.token, event(h))).status).toBe(202);
  });
});

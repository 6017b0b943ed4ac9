// Every authenticated call counts against a documented budget reported in X-RateLimit-* (SPEC
// Limits: the REST v1 request budget's value is ours to choose; inbound protocol 9). Publishing
// keeps its 60/min window; read-back, resolve, supplement, event types and the tools-token ping
// count against the token's request budget, 600/min in a window of its own, so reads never use
// up the publish budget. Time moves with the harness clock; nothing sleeps.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RATE_BUDGETS } from '../../../src/domain/rate-budgets.rules.js';
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
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const nowUnix = () => h.clock.now().getTime() / 1000;

function expectBudget(r: HttpResult, limit: number, remaining: number): void {
  expect(r.headers.get('x-ratelimit-limit'), r.text).toBe(String(limit));
  expect(r.headers.get('x-ratelimit-remaining'), r.text).toBe(String(remaining));
  const reset = Number(r.headers.get('x-ratelimit-reset'));
  expect(Number.isInteger(reset)).toBe(true);
  expect(reset).toBeGreaterThan(nowUnix());
  expect(reset).toBeLessThanOrEqual(Math.ceil(nowUnix()) + 61);
}

const readBack = (t: TestToken, id: string) => http(h, 'GET', `/api/v1/events/${id}`, { token: t.token });

async function published(t: TestToken): Promise<string> {
  const r = await publish(h, t.token, event(h));
  expect(r.status, r.text).toBe(202);
  return r.body.deliveryId;
}

describe('the request budget of inbound tokens (600 per minute, its own window)', () => {
  it('is the documented figure', () => {
    expect(RATE_BUDGETS.request.windows).toEqual([{ limit: 600, windowMs: 60_000, per: 'minute', suffix: ':req' }]);
  });

  it('read-back, resolve, supplement and event types each count once and report the request budget', async () => {
    const t = await newPersonalToken(h);
    const id = await published(t);
    const get = await readBack(t, id);
    expect(get.status).toBe(200);
    expectBudget(get, 600, 599);
    const supplement = await http(h, 'POST', `/api/v1/events/${id}/supplement`, { token: t.token, body: { markdown_body: 'more context' } });
    expect(supplement.status, supplement.text).toBe(201);
    expectBudget(supplement, 600, 598);
    const resolve = await http(h, 'POST', `/api/v1/events/${id}/resolve`, { token: t.token, body: {} });
    expect(resolve.status, resolve.text).toBe(200);
    expectBudget(resolve, 600, 597);
    const types = await http(h, 'GET', '/api/v1/event-types', { token: t.token });
    expect(types.status, types.text).toBe(200);
    expectBudget(types, 600, 596);
  });

  it('a call that fails after authentication counts too (404, 400, 403)', async () => {
    const t = await newPersonalToken(h);
    const other = await newPersonalToken(h);
    const id = await published(other);
    expectBudget(await readBack(t, '00000000-0000-4000-8000-000000000000'), 600, 599);
    expectBudget(await readBack(t, 'not-a-uuid'), 600, 598);
    const foreign = await readBack(t, id);
    expect(foreign.status).toBe(403);
    expectBudget(foreign, 600, 597);
    // An unauthenticated call is refused before any budget: no headers.
    const anon = await http(h, 'GET', `/api/v1/events/${id}`);
    expect(anon.status).toBe(401);
    expect(anon.headers.get('x-ratelimit-limit')).toBeNull();
  });

  it('reads do not use up the publish budget, and publishes do not use up the request budget', async () => {
    const t = await newPersonalToken(h);
    const id = await published(t); // publish budget: 59 left
    for (let i = 0; i < 5; i++) expect((await readBack(t, id)).status).toBe(200);
    const next = await publish(h, t.token, event(h));
    expect(next.status).toBe(202);
    expectBudget(next, 60, 58);
    expectBudget(await readBack(t, id), 600, 594);
  });

  it('past its budget a read is 429 with Retry-After and X-RateLimit-*, publishing still works, and the window frees after a minute', async () => {
    const t = await newPersonalToken(h);
    const id = await published(t);
    // 600 reads, 20 at a time.
    for (let i = 0; i < 600; i += 20) {
      const batch = await Promise.all(Array.from({ length: 20 }, () => readBack(t, id)));
      expect(batch.map((r) => r.status)).toEqual(Array(20).fill(200));
    }
    const over = await readBack(t, id);
    expect(over.status).toBe(429);
    expect(over.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(over.body).toMatchObject({ status: 429, code: 'rate_limited' });
    expect(over.body.type).toMatch(/\/rate-limited$/);
    const retryAfter = Number(over.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expectBudget(over, 600, 0);
    // Resolve and supplement share the request budget; nothing is written for them.
    const resolve = await http(h, 'POST', `/api/v1/events/${id}/resolve`, { token: t.token, body: {} });
    expect(resolve.status).toBe(429);
    const supplement = await http(h, 'POST', `/api/v1/events/${id}/supplement`, { token: t.token, body: { markdown_body: 'x' } });
    expect(supplement.status).toBe(429);
    const rows = await h.svc.deps.orm.em.getConnection().execute(`select resolved_at from deliveries where id = ?`, [id]);
    expect(rows).toEqual([{ resolved_at: null }]);
    // The publish budget is untouched: one publish so far.
    const pub = await publish(h, t.token, event(h));
    expect(pub.status).toBe(202);
    expectBudget(pub, 60, 58);

    h.clock.advance(60_001);
    const later = await readBack(t, id);
    expect(later.status).toBe(200);
    expectBudget(later, 600, 599);
  });

  it('Connect counts on the same windows: EventService.Get reports the request budget, Publish the publish budget', async () => {
    const t = await newPersonalToken(h);
    const id = await published(t);
    const rpc = (method: string, body: unknown) =>
      http(h, 'POST', `/fluxdesk.events.v1.EventService/${method}`, { token: t.token, body, headers: { 'content-type': 'application/json' } });
    const got = await rpc('Get', { deliveryId: id });
    expect(got.status, got.text).toBe(200);
    expectBudget(got, 600, 599);
    expectBudget(await readBack(t, id), 600, 598);
    const missing = await rpc('Get', { deliveryId: '00000000-0000-4000-8000-000000000000' });
    expect(missing.status).toBe(404);
    expectBudget(missing, 600, 597);
  });

  it('the older endpoint family counts too: the tools-token ping reports the request budget', async () => {
    const admin = await newUser(h, 'admin');
    const tools = await operator<{ token: string }>(h, 'tokens.create_tools', {
      owner: admin.email,
      integrator: `budget-${randomBytes(4).toString('hex')}`,
      name: 'budget tests',
    });
    const ping = (token: string) => http(h, 'POST', '/api/internal-os/integrations/claim/ping', { token });
    const first = await ping(tools.token);
    expect(first.status, first.text).toBe(200);
    expectBudget(first, 600, 599);
    expectBudget(await ping(tools.token), 600, 598);
    const types = await http(h, 'GET', '/api/v1/event-types', { token: tools.token });
    expect(types.status, types.text).toBe(200);
    expectBudget(types, 600, 597);
  });
});

describe('the budgets are written where integrators read them', () => {
  it('the inbound protocol text and the OpenAPI document name both budgets', async () => {
    const text = await (await fetch(`${h.baseUrl}/api/internal-os/integrations/protocol`)).text();
    expect(text).toContain('| publish | 60 per minute |');
    expect(text).toContain('| request | 600 per minute | read-back `GET /api/v1/events/{deliveryId}`, resolve, supplement, `GET /api/v1/event-types`');
    const doc = (await http(h, 'GET', '/api/v1/openapi.json')).body;
    for (const [path, method, status] of [
      ['/api/v1/events/{deliveryId}', 'get', '200'],
      ['/api/v1/events/{deliveryId}/resolve', 'post', '200'],
      ['/api/v1/events/{deliveryId}/supplement', 'post', '201'],
      ['/api/v1/event-types', 'get', '200'],
    ] as const) {
      const op = doc.paths[path][method];
      expect(Object.keys(op.responses[status].headers ?? {}), path).toContain('X-RateLimit-Limit');
      expect(Object.keys(op.responses), path).toContain('429');
    }
  });
});

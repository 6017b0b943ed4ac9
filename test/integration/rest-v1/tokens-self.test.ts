// GET /api/v1/tokens/self: a token's view of itself (owner, integrator, expiry, rotation overlap,
// the limits now, the circuit breaker), for every inbound token kind; counters move with real
// publishes; reading it counts one read and nothing else; never a secret.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { event, http, newPersonalToken, operator, publish, startHarness, type Harness } from '../../helpers/harness.js';
import { adminTools, approvedEmployee, sql } from '../../helpers/tools.js';
import { Code, createClient } from '@connectrpc/connect';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { EventService } from '../../../gen/fluxdesk/events/v1/events_pb.js';
import { bearer, closeSessions, fails, transportFor } from '../../helpers/connect.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  closeSessions();
  await h?.close();
});

const self = (token: string) => http(h, 'GET', '/api/v1/tokens/self', { token });
const YEAR_MS = 365 * 24 * 60 * 60 * 1000;
const minute = (body: any, budget: string) => body.limits.perMinute.find((w: any) => w.budget === budget);

function expectNoSecret(text: string, token: string): void {
  expect(text).not.toContain(token);
  expect(text).not.toContain(token.slice(12));
  expect(text).not.toContain(createHash('sha256').update(token).digest('hex'));
  expect(text).not.toMatch(/secret|hash|svc-in-pers-|svc-tools-/i);
}

describe('GET /api/v1/tokens/self', () => {
  it('personal token: every field; daily, userDaily and the per-minute windows move with real publishes', async () => {
    const t = await newPersonalToken(h, { dailyLimit: 50 });
    const r0 = await self(t.token);
    expect(r0.status, r0.text).toBe(200);
    expect(r0.headers.get('cache-control')).toBe('no-store');
    expect(r0.body).toMatchObject({
      tokenId: t.tokenId,
      kind: 'personal',
      label: 'test',
      owner: { userId: t.user.userId, email: t.user.email },
      integrator: { slug: 'personal', allowedEventPrefix: 'personal.' },
      previousValidUntil: null,
      limits: { daily: { limit: 50, used: 0 }, userDaily: { limit: 500, used: 0 } },
      circuitBreaker: { state: 'closed', failuresLastHour: 0, failureRate: 0 },
      requestId: r0.headers.get('x-request-id'),
    });
    expect(Object.keys(r0.body).sort()).toEqual(
      [
        'tokenId',
        'kind',
        'label',
        'owner',
        'integrator',
        'createdAt',
        'lastUsedAt',
        'expiresAt',
        'previousValidUntil',
        'limits',
        'circuitBreaker',
        'requestId',
      ].sort(),
    );
    const lastUse = Date.parse(r0.body.lastUsedAt ?? r0.body.createdAt);
    expect(Date.parse(r0.body.expiresAt)).toBe(lastUse + YEAR_MS);
    // This read is the one counted read: the request window shows it, the publish window is untouched.
    expect(minute(r0.body, 'publish')).toMatchObject({ limit: 60, remaining: 60 });
    expect(minute(r0.body, 'request')).toMatchObject({ limit: 600, remaining: 599 });
    const midnight = new Date(h.clock.now());
    midnight.setUTCHours(24, 0, 0, 0);
    expect(r0.body.limits.daily.resetAtUnix).toBe(midnight.getTime() / 1000);
    expectNoSecret(r0.text, t.token);

    for (let i = 0; i < 3; i++) expect((await publish(h, t.token, event(h))).status).toBe(202);
    const repeat = event(h);
    await publish(h, t.token, repeat);
    expect((await publish(h, t.token, repeat)).status).toBe(200);
    const r1 = await self(t.token);
    expect(r1.body.limits.daily).toMatchObject({ limit: 50, used: 4 });
    expect(r1.body.limits.userDaily).toMatchObject({ used: 4 });
    expect(minute(r1.body, 'publish')).toMatchObject({ remaining: 55 });
    expect(minute(r1.body, 'publish').resetAtUnix).toBeGreaterThan(h.clock.now().getTime() / 1000);
    expect(minute(r1.body, 'request')).toMatchObject({ remaining: 598 });
    // Reading it again and again distorts nothing but the request window, by one each.
    const r2 = await self(t.token);
    expect(r2.body.limits.daily).toEqual(r1.body.limits.daily);
    expect(minute(r2.body, 'publish')).toEqual(minute(r1.body, 'publish'));
    expect(minute(r2.body, 'request')).toMatchObject({ remaining: 597 });
  });

  it("another token sees only itself; the owner's userDaily counts every token of the owner", async () => {
    const a = await newPersonalToken(h);
    const b = await newPersonalToken(h, { user: a.user });
    const c = await newPersonalToken(h);
    await publish(h, a.token, event(h));
    await publish(h, a.token, event(h));
    const rb = await self(b.token);
    expect(rb.body).toMatchObject({ tokenId: b.tokenId, limits: { daily: { used: 0 }, userDaily: { used: 2 } } });
    expect(minute(rb.body, 'publish')).toMatchObject({ remaining: 60 });
    const rc = await self(c.token);
    expect(rc.body.tokenId).toBe(c.tokenId);
    expect(rc.text).not.toContain(a.tokenId);
    expect(rc.text).not.toContain(a.user.email);
    expect(rc.body.limits.userDaily.used).toBe(0);
  });

  it('a claimed token after rotation reports its integrator and the end of the overlap; the tools-token reports no daily limits', async () => {
    const tools = await adminTools(h);
    const emp = await approvedEmployee(h, tools);
    const first = await http(h, 'POST', '/api/v1/tokens/claim', { token: tools.token, body: { email: emp.email, label: 'ci', daily_limit: 7 } });
    expect(first.status, first.text).toBe(200);
    const rotated = await http(h, 'POST', '/api/v1/tokens/claim', { token: tools.token, body: { email: emp.email } });
    expect(rotated.status).toBe(200);
    const r = await self(rotated.body.token);
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({
      tokenId: first.body.tokenId,
      kind: 'personal',
      owner: { userId: emp.userId, email: emp.email },
      integrator: { slug: tools.integratorSlug, allowedEventPrefix: tools.prefix },
      previousValidUntil: rotated.body.expiresPriorAt,
    });
    // The previous value is still accepted during the overlap and sees the same token.
    const old = await self(first.body.token);
    expect(old.body.tokenId).toBe(first.body.tokenId);
    expectNoSecret(r.text, rotated.body.token);
    expectNoSecret(r.text, first.body.token);

    const rt = await self(tools.token);
    expect(rt.status, rt.text).toBe(200);
    expect(rt.body).toMatchObject({
      tokenId: tools.tokenId,
      kind: 'tools_claim',
      owner: { userId: tools.admin.userId },
      integrator: { slug: tools.integratorSlug, allowedEventPrefix: tools.prefix },
      expiresAt: null,
      limits: { daily: null, userDaily: null },
    });
    expect(minute(rt.body, 'request')).toMatchObject({ remaining: 599 });
    expectNoSecret(rt.text, tools.token);
  });

  it('moderation token: daily applies, userDaily does not (held events use no inbox budget)', async () => {
    const admin = await operator(h, 'users.create', { email: `mod-${Date.now()}@example.test`, name: 'Mod', role: 'admin' });
    const m = await operator<{ tokenId: string; token: string }>(h, 'moderation.create_token', { owner: admin.email, label: 'desk' });
    const r = await self(m.token);
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ tokenId: m.tokenId, kind: 'moderation', label: 'desk', limits: { userDaily: null } });
    expect(r.body.limits.daily).toMatchObject({ used: 0 });
    expectNoSecret(r.text, m.token);
  });

  it('the circuit breaker: failures counted, then open; the suspended token still reads itself while it cannot publish', async () => {
    const t = await newPersonalToken(h);
    await publish(h, t.token, event(h));
    for (let i = 0; i < 5; i++) expect((await publish(h, t.token, event(h, { severity: 'loud' }))).status).toBe(400);
    const some = await self(t.token);
    expect(some.body.circuitBreaker).toEqual({ state: 'closed', failuresLastHour: 5, failureRate: 5 / 6 });
    for (let i = 0; i < 16; i++) await publish(h, t.token, event(h, { severity: 'loud' }));
    const blocked = await publish(h, t.token, event(h));
    expect(blocked.status).toBe(429);
    expect(blocked.body.code).toBe('circuit_open');
    const r = await self(t.token);
    expect(r.status, r.text).toBe(200);
    // The trip restarts the breaker's counting (inbound protocol 15): what it counts now is nothing yet.
    expect(r.body.circuitBreaker).toEqual({ state: 'open', failuresLastHour: 0, failureRate: 0 });
  });

  it('refuses a missing, unknown or agent token with 401', async () => {
    expect((await http(h, 'GET', '/api/v1/tokens/self')).status).toBe(401);
    expect((await self(`svc-in-pers-${'x'.repeat(32)}`)).status).toBe(401);
    const t = await newPersonalToken(h);
    await sql(h, `update inbound_tokens set status = 'revoked', revoked_at = now() where id = ?`, [t.tokenId]);
    expect((await self(t.token)).status).toBe(401);
  });
});

describe('EventService.GetTokenSelf (Connect twin)', () => {
  it('answers what REST answers, for the calling token, in the protobuf shape; without a token: unauthenticated', async () => {
    const t = await newPersonalToken(h, { dailyLimit: 50 });
    expect((await publish(h, t.token, event(h))).status).toBe(202);
    const rest = (await self(t.token)).body;
    for (const protocol of ['connect', 'grpc'] as const) {
      const c = createClient(EventService, transportFor(h, protocol, [bearer(t.token)]));
      const r = await c.getTokenSelf({});
      expect(r).toMatchObject({
        tokenId: t.tokenId,
        kind: 'personal',
        label: 'test',
        owner: { userId: t.user.userId, email: t.user.email },
        integrator: { slug: 'personal', allowedEventPrefix: 'personal.' },
        limits: { perMinuteUnavailable: false, daily: { limit: 50, used: 1 }, userDaily: { limit: rest.limits.userDaily.limit, used: 1 } },
        circuitBreaker: { state: 'closed', failuresLastHour: 0, failureRate: 0 },
      });
      expect(r.previousValidUntil).toBeUndefined();
      expect(timestampDate(r.createdAt!).toISOString()).toBe(rest.createdAt);
      expect(r.limits!.perMinute.map((w) => w.budget).sort()).toEqual(rest.limits.perMinute.map((w: any) => w.budget).sort());
      expect(r.limits!.perMinute.find((w) => w.budget === 'publish')).toMatchObject({ limit: 60, remaining: 59 });
      expect(r.requestId).not.toBe('');
      expect(JSON.stringify(r, (_k, v) => (typeof v === 'bigint' ? String(v) : v))).not.toContain(t.token.slice(12));
    }
    const anon = createClient(EventService, transportFor(h, 'connect'));
    expect((await fails(anon.getTokenSelf({}))).code).toBe(Code.Unauthenticated);
  });
});

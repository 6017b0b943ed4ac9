// The per-token circuit breaker (SPEC Limits "Circuit breaker": failure rate above 80 % over a
// continuous hour with more than 20 failures; Errors: 429 with Retry-After, `circuit_open`;
// "Side effects of a new delivery": the owner gets an unlimited inbox notice; an admin resets it).
// A failure is a rejected event (400 schema_invalid, 403 cross_project_blocked). Time moves with
// the ManualClock, never by sleeping.
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ModerationService } from '../../../gen/fluxdesk/moderation/v1/moderation_pb.js';
import { ErrorInfoSchema } from '../../../gen/fluxdesk/common/v1/errors_pb.js';
import { bearer, closeSessions, transportFor } from '../../helpers/connect.js';
import { event, http, newPersonalToken, newUser, operator, publish, publishLegacy, startHarness, type Harness, type TestToken } from '../../helpers/harness.js';
import { adminTools, claimedEmployee, HOUR_MS, sql } from '../../helpers/tools.js';
import { newAgent } from '../mcp/rpc.js';
import { BREAKER_MIN_FAILURES } from '../../../src/domain/tokens/circuit-breaker.rules.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  closeSessions();
  await h?.close();
});

const bad = () => event(h, { severity: 'loud' });
async function fail(t: TestToken, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const r = await publish(h, t.token, bad());
    expect(r.status, r.text).toBe(400);
  }
}
async function succeed(t: TestToken, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const r = await publish(h, t.token, event(h));
    expect(r.status, r.text).toBe(202);
  }
}
const suspensionNotices = (userId: string) =>
  sql(h, `select title, summary, tags, actor_user_id from notifications where user_id = ? and title like '%suspended%'`, [userId]);
const breakerOf = async (tokenId: string) => (await sql(h, 'select breaker_open_until from inbound_tokens where id = ?', [tokenId]))[0].breaker_open_until;

function expectCircuitOpen(r: Awaited<ReturnType<typeof publish>>): void {
  expect(r.status, r.text).toBe(429);
  const retryAfter = Number(r.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThan(3500);
  expect(retryAfter).toBeLessThanOrEqual(3600);
  expect(r.headers.get('x-ratelimit-limit')).toBe('60');
  expect(r.headers.get('x-ratelimit-remaining')).toBe('0');
  expect(Number(r.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
}

describe('tripping', () => {
  it('the 21st failure with no successes trips it: every call then answers 429 circuit_open, the owner is told once', async () => {
    const t = await newPersonalToken(h);
    await fail(t, BREAKER_MIN_FAILURES);
    expect(await breakerOf(t.tokenId)).toBeNull();
    expect(await suspensionNotices(t.user.userId)).toEqual([]);
    await fail(t, 1);
    expect(await breakerOf(t.tokenId)).not.toBeNull();

    const r = await publish(h, t.token, event(h));
    expectCircuitOpen(r);
    expect(r.body).toMatchObject({ type: expect.stringMatching(/\/rate-limited$/), status: 429, code: 'circuit_open', suspended_until: expect.any(String) });
    const legacy = await publishLegacy(h, t.token, event(h));
    expectCircuitOpen(legacy);
    expect(legacy.body).toMatchObject({ error: 'circuit_open' });
    expect((await http(h, 'POST', '/api/internal-os/integrations/inbound/personal/ping', { token: t.token, body: {} })).status).toBe(429);
    // Nothing was accepted or counted while open.
    expect(await sql(h, `select action from audit_log where token_id = ? and action = 'inbound.event.received'`, [t.tokenId])).toEqual([]);

    const notices = await suspensionNotices(t.user.userId);
    expect(notices).toEqual([
      {
        title: 'Your token "test" was suspended by the circuit breaker',
        summary: expect.stringContaining('21 of its last 21 events'),
        tags: ['circuit_open'],
        actor_user_id: null,
      },
    ]);
    expect(await sql(h, `select action, summary from audit_log where token_id = ? and action = 'inbound.token.suspended'`, [t.tokenId])).toEqual([
      { action: 'inbound.token.suspended', summary: { failures: 21, successes: 0, suspended_until: expect.any(String) } },
    ]);
  });

  it('needs a failure share above 80 %: 24 of 30 does not trip, 25 of 31 does', async () => {
    const t = await newPersonalToken(h);
    await succeed(t, 6);
    await fail(t, 24);
    expect(await breakerOf(t.tokenId)).toBeNull();
    await fail(t, 1);
    expect(await breakerOf(t.tokenId)).not.toBeNull();
    expectCircuitOpen(await publish(h, t.token, event(h)));
  });

  it('counts over a continuous hour only: failures older than an hour are forgotten', async () => {
    const t = await newPersonalToken(h);
    await fail(t, BREAKER_MIN_FAILURES);
    h.clock.advance(HOUR_MS + 1000);
    await fail(t, 1);
    expect(await breakerOf(t.tokenId)).toBeNull();
    await succeed(t, 1);
  });

  it('a 403 cross_project_blocked is a failure too; a suspended moderation token is blocked as well', async () => {
    const admin = await newUser(h, 'admin');
    const m = await operator<{ tokenId: string; token: string }>(h, 'moderation.create_token', { owner: admin.email, label: 'breaker mod' });
    const mt: TestToken = { ...m, user: admin };
    for (let i = 0; i < BREAKER_MIN_FAILURES + 1; i++) {
      const r = await publishLegacy(h, mt.token, event(h, { recipient: { type: 'email', value: admin.email }, project_slug: `nope-${i}` }));
      expect(r.status, r.text).toBe(403);
      expect(r.body.error).toBe('cross_project_blocked');
    }
    const r = await publishLegacy(h, mt.token, event(h, { recipient: { type: 'email', value: admin.email } }));
    expectCircuitOpen(r);
    expect(await suspensionNotices(admin.userId)).toHaveLength(1);
  });
});

describe('recovery and reset', () => {
  it('recovers by itself after the suspension; old failures do not trip it again', async () => {
    const t = await newPersonalToken(h);
    await fail(t, BREAKER_MIN_FAILURES + 1);
    expectCircuitOpen(await publish(h, t.token, event(h)));
    h.clock.advance(HOUR_MS + 1000);
    await succeed(t, 1);
    await fail(t, 1);
    expect(await sql(h, `select count(*)::int as n from audit_log where token_id = ? and action = 'inbound.token.suspended'`, [t.tokenId])).toEqual([{ n: 1 }]);
    await succeed(t, 1);
  });

  it('an admin resets it over Connect (admin:tokens): the token works at once and the owner is told', async () => {
    const t = await newPersonalToken(h);
    await fail(t, BREAKER_MIN_FAILURES + 1);
    expectCircuitOpen(await publish(h, t.token, event(h)));

    const member = await newAgent(h);
    const denied = await createClient(ModerationService, transportFor(h, 'connect', [bearer(member.token)]))
      .resetCircuitBreaker({ tokenId: t.tokenId })
      .catch((e) => ConnectError.from(e));
    expect((denied as ConnectError).code).toBe(Code.PermissionDenied);
    const admin = await newAgent(h, ['admin:tokens'], await newUser(h, 'admin'));
    const svc = createClient(ModerationService, transportFor(h, 'grpc', [bearer(admin.token)]));
    expect(await svc.resetCircuitBreaker({ tokenId: t.tokenId })).toMatchObject({ tokenId: t.tokenId, wasOpen: true });
    await succeed(t, 1);
    expect(await sql(h, `select title, actor_user_id from notifications where user_id = ? and title like '%works again%'`, [t.user.userId])).toEqual([
      { title: 'Your token "test" works again', actor_user_id: admin.userId },
    ]);
    // The reset restarts the count: one more failure does not trip it.
    await fail(t, 1);
    expect(await breakerOf(t.tokenId)).toBeNull();
    expect(await svc.resetCircuitBreaker({ tokenId: t.tokenId })).toMatchObject({ wasOpen: false });
    const missing = await svc.resetCircuitBreaker({ tokenId: '00000000-0000-4000-8000-000000000000' }).catch((e) => ConnectError.from(e));
    expect((missing as ConnectError).code).toBe(Code.NotFound);
    expect((missing as ConnectError).findDetails(ErrorInfoSchema)[0]?.code).toBe('not_found');
    expect(
      await sql(h, `select actor_user_id, summary from audit_log where token_id = ? and action = 'inbound.token.breaker_reset' order by created_at`, [
        t.tokenId,
      ]),
    ).toEqual([
      { actor_user_id: admin.userId, summary: { was_open: true } },
      { actor_user_id: admin.userId, summary: { was_open: false } },
    ]);
  });

  it('operators reset it from the CLI operation', async () => {
    const t = await newPersonalToken(h);
    await fail(t, BREAKER_MIN_FAILURES + 1);
    expect(await operator(h, 'tokens.reset_circuit_breaker_operator', { token_id: t.tokenId })).toEqual({ token_id: t.tokenId, was_open: true });
    await succeed(t, 1);
  });
});

describe('bulk fan-out', () => {
  it('a recipient whose claimed token is suspended gets the row error circuit_open; the others are delivered', async () => {
    const tools = await adminTools(h);
    const open = await claimedEmployee(h, tools);
    const fine = await claimedEmployee(h, tools);
    await sql(h, 'update inbound_tokens set breaker_open_until = ? where id = ?', [new Date(h.clock.now().getTime() + HOUR_MS).toISOString(), open.tokenId]);
    const r = await http(h, 'POST', '/api/v1/events/bulk', {
      token: tools.token,
      body: {
        event: event(h, { event_type: `${tools.prefix}job.done` }),
        recipients: [
          { type: 'email', email: open.user.email },
          { type: 'email', email: fine.user.email },
        ],
      },
    });
    expect(r.status, r.text).toBe(202);
    expect(r.body.results[0]).toEqual({ email: open.user.email, error: 'circuit_open' });
    expect(r.body.results[1]).toMatchObject({ email: fine.user.email, deduped: false });
  });
});

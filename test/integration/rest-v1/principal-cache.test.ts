// The principal cache of events.publish (src/infra/tokens/principal-cache.ts): a cached token
// lookup never decides an answer on its own. The publish statement writes only if the token, its
// owner and its integrator rows are unchanged; every failure is decided after a fresh lookup.
// Each test first warms the cache (the first publish schedules the last_used_at refresh, which
// changes the token row; the second, after it is written, is served from a fresh lookup that is then
// cached) and checks the entry is there, then changes a row the way an operation would, and
// publishes again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../../src/domain/tokens/token-lifecycle.rules.js';
import { event, newPersonalToken, publish, startHarness, type Harness, type TestToken } from '../../helpers/harness.js';
import { fieldCodes } from '../../helpers/tools.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const sql = (q: string, params: unknown[] = []) => h.svc.deps.orm.em.getConnection().execute(q, params) as Promise<any[]>;
const cache = () => h.svc.deps.ports.tokens.principals;
const lastUseWritten = () => h.svc.deps.ports.tokens.lastUse.settled();
const hashOf = (t: TestToken) => hashToken(t.token);

/** A personal token whose principal the service now serves from its cache. */
async function warmToken(): Promise<TestToken> {
  const t = await newPersonalToken(h);
  expect((await publish(h, t.token, event(h))).status).toBe(202);
  await lastUseWritten();
  expect((await publish(h, t.token, event(h))).status).toBe(202);
  expect(cache().get(hashOf(t))).toBeDefined();
  return t;
}

const deliveriesOf = async (t: TestToken) => Number((await sql(`select count(*)::int as n from deliveries where token_id = ?`, [t.tokenId]))[0].n);
const auditOf = async (t: TestToken, action: string) =>
  Number((await sql(`select count(*)::int as n from audit_log where token_id = ? and action = ?`, [t.tokenId, action]))[0].n);

describe('a cached principal is proven by the write', () => {
  it('repeats and new events are served from the cache: 202, then 200 deduped with fireCount 2', async () => {
    const t = await warmToken();
    const ev = event(h);
    const first = await publish(h, t.token, ev);
    const again = await publish(h, t.token, ev);
    expect([first.status, again.status]).toEqual([202, 200]);
    expect(again.body).toMatchObject({ deliveryId: first.body.deliveryId, deduped: true, fireCount: 2 });
    expect(cache().get(hashOf(t))).toBeDefined();
  });

  it.each([
    ['revoked', `update inbound_tokens set status = 'revoked', revoked_at = now() where id = ?`, 'token'],
    ['disabled by its owner', `update inbound_tokens set status = 'disabled' where id = ?`, 'token'],
    ['owner offboarded', `update users set status = 'offboarded' where id = (select owner_user_id from inbound_tokens where id = ?)`, 'user'],
  ])('token %s after it was cached: the next event is 401 token_revoked and nothing is written', async (_label, change) => {
    const t = await warmToken();
    await sql(change, [t.tokenId]);
    const before = await deliveriesOf(t);
    const r = await publish(h, t.token, event(h));
    expect(r.status).toBe(401);
    expect(r.body).toMatchObject({ status: 401, code: 'token_revoked' });
    expect(await deliveriesOf(t)).toBe(before);
    expect(cache().get(hashOf(t))).toBeUndefined();
  });

  it('a revoked cached token sending an invalid event gets 401, not 400, and no rejected-event audit row', async () => {
    const t = await warmToken();
    await sql(`update inbound_tokens set status = 'revoked', revoked_at = now() where id = ?`, [t.tokenId]);
    const r = await publish(h, t.token, event(h, { severity: 'loud', title: '' }));
    expect(r.status).toBe(401);
    expect(r.body.code).toBe('token_revoked');
    expect(await auditOf(t, 'inbound.event.rejected')).toBe(0);
  });

  it('a revoked cached token naming a project it is not in gets 401, not 403, and no rejected-event audit row', async () => {
    const t = await warmToken();
    await sql(`update inbound_tokens set status = 'revoked', revoked_at = now() where id = ?`, [t.tokenId]);
    const r = await publish(h, t.token, event(h, { project_slug: 'no-such-project' }));
    expect(r.status).toBe(401);
    expect(await auditOf(t, 'inbound.event.rejected')).toBe(0);
  });

  it('a circuit breaker opened after the token was cached answers 429 circuit_open', async () => {
    const t = await warmToken();
    await sql(`update inbound_tokens set breaker_open_until = ?::timestamptz, breaker_since = ?::timestamptz where id = ?`, [
      new Date(h.clock.now().getTime() + 3_600_000).toISOString(),
      h.clock.now().toISOString(),
      t.tokenId,
    ]);
    const before = await deliveriesOf(t);
    const r = await publish(h, t.token, event(h));
    expect(r.status).toBe(429);
    expect(r.body.code).toBe('circuit_open');
    expect(await deliveriesOf(t)).toBe(before);
  });

  it('a harmless change (label) after caching: the event is accepted once and counted once against the window', async () => {
    const t = await warmToken();
    const prev = await publish(h, t.token, event(h));
    expect(prev.status).toBe(202);
    await sql(`update inbound_tokens set label = 'renamed' where id = ?`, [t.tokenId]);
    const before = await deliveriesOf(t);
    const r = await publish(h, t.token, event(h));
    expect(r.status).toBe(202);
    expect(await deliveriesOf(t)).toBe(before + 1);
    // The first pass counted the request; the fresh pass did not count it again.
    expect(Number(r.headers.get('x-ratelimit-remaining'))).toBe(Number(prev.headers.get('x-ratelimit-remaining')) - 1);
    // The fresh lookup replaced the entry with the current row.
    expect(cache().get(hashOf(t))?.label).toBe('renamed');
  });

  it("a narrowed namespace of the token's integrator after caching is enforced on the next event (decided on the fresh row)", async () => {
    // A token under an integrator of its own, so other tests' tokens keep theirs.
    const t = await newPersonalToken(h);
    const slug = `cachetest-${t.tokenId.slice(0, 8)}`;
    await sql(`insert into integrators (id, slug, name, allowed_event_prefix, created_at) values (gen_random_uuid(), ?, 'cache test', 'personal.', now())`, [
      slug,
    ]);
    await sql(`update inbound_tokens set integrator_id = (select id from integrators where slug = ?) where id = ?`, [slug, t.tokenId]);
    expect((await publish(h, t.token, event(h))).status).toBe(202);
    await lastUseWritten();
    expect((await publish(h, t.token, event(h))).status).toBe(202);
    expect(cache().get(hashOf(t))?.allowed_event_prefix).toBe('personal.');
    await sql(`update integrators set allowed_event_prefix = 'cachetest.' where slug = ?`, [slug]);
    const r = await publish(h, t.token, event(h, { event_type: 'personal.build.failed' }));
    expect(r.status).toBe(400);
    expect(fieldCodes(r)).toEqual([{ field: 'event_type', code: 'namespace_mismatch' }]);
    expect((await publish(h, t.token, event(h, { event_type: 'cachetest.build.failed' }))).status).toBe(202);
  });

  it('a keyed request (Idempotency-Key) never replays to a token revoked after the first answer', async () => {
    const t = await warmToken();
    const ev = event(h);
    const key = `cache-${t.tokenId}`;
    expect((await publish(h, t.token, ev, { 'idempotency-key': key })).status).toBe(202);
    await sql(`update inbound_tokens set status = 'revoked', revoked_at = now() where id = ?`, [t.tokenId]);
    const r = await publish(h, t.token, ev, { 'idempotency-key': key });
    expect(r.status).toBe(401);
    expect(r.headers.get('idempotent-replayed')).toBeNull();
  });
});

describe('last use (refreshed hourly, off the request path)', () => {
  const lastUse = async (t: TestToken) => (await sql(`select last_used_at, xmin::text as ver from inbound_tokens where id = ?`, [t.tokenId]))[0];

  it('the first call refreshes last_used_at to the clock time; later calls within the hour write nothing', async () => {
    const t = await newPersonalToken(h);
    expect((await lastUse(t)).last_used_at).toBeNull();
    const t0 = h.clock.now().getTime();
    expect((await publish(h, t.token, event(h))).status).toBe(202);
    await lastUseWritten();
    const first = await lastUse(t);
    expect(new Date(first.last_used_at).getTime()).toBeGreaterThanOrEqual(t0);
    expect(new Date(first.last_used_at).getTime()).toBeLessThanOrEqual(h.clock.now().getTime());
    for (let i = 0; i < 3; i++) expect((await publish(h, t.token, event(h))).status).toBe(202);
    await lastUseWritten();
    expect((await lastUse(t)).ver).toBe(first.ver);
  });

  it('an hour later the next call refreshes it again, and the cached principal is replaced without a failed request', async () => {
    const t = await warmToken();
    const before = await lastUse(t);
    h.clock.advance(61 * 60 * 1000);
    try {
      for (let i = 0; i < 3; i++) {
        expect((await publish(h, t.token, event(h))).status).toBe(202);
        await lastUseWritten();
      }
      const after = await lastUse(t);
      expect(new Date(after.last_used_at).getTime()).toBeGreaterThan(new Date(before.last_used_at).getTime());
      expect(cache().get(hashOf(t))?.token_ver).toBe(after.ver);
    } finally {
      h.clock.advance(-61 * 60 * 1000);
    }
  });

  it('20 tokens whose first calls arrive at once: every last_used_at is written', async () => {
    const tokens = await Promise.all(Array.from({ length: 20 }, () => newPersonalToken(h)));
    const rs = await Promise.all(tokens.map((t) => publish(h, t.token, event(h))));
    expect(rs.map((r) => r.status)).toEqual(tokens.map(() => 202));
    await lastUseWritten();
    const rows = await sql(`select last_used_at from inbound_tokens where id = any(?::uuid[])`, [`{${tokens.map((t) => t.tokenId).join(',')}}`]);
    expect(rows).toHaveLength(20);
    for (const r of rows) expect(r.last_used_at).not.toBeNull();
  });
});

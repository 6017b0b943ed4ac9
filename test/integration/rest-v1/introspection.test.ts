// GET /api/v1/integrators and GET /api/v1/event-types (SPEC "Introspection and health", section A
// rows, Authentication 7, Limits "Event-type window"). The window test moves the clock and runs last.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventTypesResponseSchema } from '../../../src/domain/events/list-event-types.js';
import { IntegratorsResponseSchema } from '../../../src/domain/tokens/list-integrators.js';
import { event, http, newPersonalToken, publish, publishLegacy, startHarness, type Harness } from '../../helpers/harness.js';
import { adminTools, agentToken, claimedEmployee, DAY_MS, expectProblem, fieldCodes, nonAdminTools, sql, tag } from '../../helpers/tools.js';

let h: Harness;
beforeAll(async () => {
  // The clock moves 136 days ahead and publishes: months of audit partitions ahead (PARTITION_MONTHS_AHEAD).
  h = await startHarness({ env: { PARTITION_MONTHS_AHEAD: '8' } });
});
afterAll(async () => {
  await h?.close();
});

const integrators = (token: string, query = '') => http(h, 'GET', `/api/v1/integrators${query}`, { token });
const eventTypes = (token: string, slug?: string) =>
  http(h, 'GET', `/api/v1/event-types${slug === undefined ? '' : `?integrator_slug=${encodeURIComponent(slug)}`}`, { token });
const typesOf = (rows: Array<{ eventType: string; count: number }>) => Object.fromEntries(rows.map((r) => [r.eventType, r.count]));

async function ok(r: Awaited<ReturnType<typeof http>>) {
  expect(r.status, r.text).toBe(200);
  const body = EventTypesResponseSchema.parse(r.body);
  expect(body.requestId).toBe(r.headers.get('x-request-id'));
  return body;
}

/** A token of fluxdesk's own integrator (`internal-os`): only its deliveries are fluxdeskInternalTypes. */
async function fluxdeskSender(): Promise<string> {
  return (await claimedEmployee(h, await adminTools(h, { integrator: 'internal-os' }))).token;
}

/** Publishes `n` distinct events of each type through a (claimed) personal token. */
async function sendTypes(token: string, types: Record<string, number>) {
  for (const [type, n] of Object.entries(types)) {
    for (let i = 0; i < n; i++) expect((await publish(h, token, event(h, { event_type: type }))).status).toBe(202);
  }
}

describe('GET /api/v1/integrators', () => {
  it('lists the non-archived registry rows with their fields and totalCount', async () => {
    const tools = await adminTools(h);
    const archived = await adminTools(h);
    await sql(h, `update integrators set archived_at = now() where slug = ?`, [archived.integratorSlug]);
    await sql(h, `update integrators set homepage_url = 'https://example.test/home', description = 'Ticketing bridge' where slug = ?`, [tools.integratorSlug]);
    const r = await integrators(tools.token);
    expect(r.status, r.text).toBe(200);
    const body = IntegratorsResponseSchema.parse(r.body);
    expect(body.requestId).toBe(r.headers.get('x-request-id'));
    expect(body.totalCount).toBe(body.items.length);
    const mine = body.items.find((i) => i.slug === tools.integratorSlug);
    const [row] = await sql(h, `select id from integrators where slug = ?`, [tools.integratorSlug]);
    expect(mine).toEqual({
      id: row.id,
      slug: tools.integratorSlug,
      name: tools.integratorSlug,
      allowedEventPrefix: `${tools.integratorSlug}.`,
      createdAt: expect.any(String),
      homepageUrl: 'https://example.test/home',
      description: 'Ticketing bridge',
    });
    expect(body.items.map((i) => i.slug)).not.toContain(archived.integratorSlug);
    const [{ n }] = await sql(h, `select count(*)::int as n from integrators where archived_at is null`);
    expect(body.totalCount).toBe(n);
  });

  it('personal, claimed and agent tokens get 401 token_mismatch; a non-admin tools-token gets 403; unknown parameters 400', async () => {
    const tools = await adminTools(h);
    const personal = await newPersonalToken(h);
    const claimed = await claimedEmployee(h, tools);
    expectProblem(await integrators(personal.token), 401, 'token_mismatch', 'unauthorized');
    expectProblem(await integrators(claimed.token), 401, 'token_mismatch');
    expectProblem(await integrators(await agentToken(h)), 401, 'token_mismatch');
    expectProblem(await integrators((await nonAdminTools(h)).token), 403, 'forbidden_admin_only', 'forbidden');
    const bad = await integrators(tools.token, '?limit=5');
    expectProblem(bad, 400, 'schema_invalid');
    expect(fieldCodes(bad)).toEqual([{ field: 'limit', code: 'unknown_key' }]);
  });
});

describe('GET /api/v1/event-types', () => {
  it("a tools-token sees its own integrator's types with counts and lastSeenAt", async () => {
    const tools = await adminTools(h);
    const c = await claimedEmployee(h, tools);
    await sendTypes(c.token, { [`${tools.prefix}ticket.opened`]: 2, [`${tools.prefix}ticket.closed`]: 1 });
    // A repeat of the same (token, event_id) is the same delivery: not counted twice.
    const ev = event(h, { event_type: `${tools.prefix}ticket.closed` });
    await publish(h, c.token, ev);
    expect((await publish(h, c.token, ev)).status).toBe(200);

    const body = await ok(await eventTypes(tools.token));
    expect(body.yourIntegrator).toEqual({ slug: tools.integratorSlug, allowedEventPrefix: tools.prefix });
    expect(typesOf(body.yourEventTypes)).toEqual({ [`${tools.prefix}ticket.closed`]: 2, [`${tools.prefix}ticket.opened`]: 2 });
    for (const row of body.yourEventTypes) {
      expect(row.lastSeenAt).not.toBeNull();
      expect(Math.abs(Date.parse(row.lastSeenAt!) - h.clock.now().getTime())).toBeLessThan(60_000);
    }
  });

  it('any valid inbound token sees its own integrator: a claimed token, a self-service token', async () => {
    const tools = await adminTools(h);
    const c = await claimedEmployee(h, tools);
    await sendTypes(c.token, { [`${tools.prefix}x.y`]: 1 });
    const claimedView = await ok(await eventTypes(c.token));
    expect(claimedView.yourIntegrator).toEqual({ slug: tools.integratorSlug, allowedEventPrefix: tools.prefix });
    expect(typesOf(claimedView.yourEventTypes)).toEqual({ [`${tools.prefix}x.y`]: 1 });
    // Naming its own integrator is allowed.
    expect((await ok(await eventTypes(c.token, tools.integratorSlug))).yourIntegrator.slug).toBe(tools.integratorSlug);

    const personal = await newPersonalToken(h);
    const own = await ok(await eventTypes(personal.token));
    expect(own.yourIntegrator).toEqual({ slug: 'personal', allowedEventPrefix: 'personal.' });
    expectProblem(await eventTypes(await agentToken(h)), 401, 'token_mismatch');
  });

  it("integrator_slug: an admin tools-token reads another integrator's types; unknown slug 404; non-admin callers 403", async () => {
    const a = await adminTools(h);
    const b = await adminTools(h);
    const cb = await claimedEmployee(h, b);
    await sendTypes(cb.token, { [`${b.prefix}deploy.done`]: 3 });
    const body = await ok(await eventTypes(a.token, b.integratorSlug));
    expect(body.yourIntegrator).toEqual({ slug: b.integratorSlug, allowedEventPrefix: b.prefix });
    expect(typesOf(body.yourEventTypes)).toEqual({ [`${b.prefix}deploy.done`]: 3 });
    expect((await ok(await eventTypes(a.token))).yourEventTypes).toEqual([]);

    expectProblem(await eventTypes(a.token, `nope-${tag()}`), 404);
    const ca = await claimedEmployee(h, a);
    expectProblem(await eventTypes(ca.token, b.integratorSlug), 403);
    expectProblem(await eventTypes((await newPersonalToken(h)).token, b.integratorSlug), 403);
    expectProblem(await eventTypes((await nonAdminTools(h)).token, b.integratorSlug), 403);
  });

  it("fluxdesk's own internal-os. types are visible to every caller in fluxdeskInternalTypes", async () => {
    const t = tag();
    const internalType = `internal-os.${t}.ping`;
    const fluxdesk = await fluxdeskSender();
    expect((await publish(h, fluxdesk, event(h, { event_type: internalType }))).status).toBe(202);
    expect((await publishLegacy(h, fluxdesk, event(h, { event_type: internalType }))).status).toBe(202);
    // Another sender's internal-os. type (the older endpoint has no namespace gate) is its own,
    // never fluxdesk's; /api/v1/events refuses it (namespace gate).
    const sender = await newPersonalToken(h);
    const forged = `internal-os.${t}.forged`;
    expect((await publishLegacy(h, sender.token, event(h, { event_type: forged }))).status).toBe(202);
    expect((await publish(h, sender.token, event(h, { event_type: forged }))).status).toBe(400);

    const tools = await adminTools(h);
    const claimed = await claimedEmployee(h, tools);
    for (const token of [tools.token, claimed.token, (await newPersonalToken(h)).token]) {
      const body = await ok(await eventTypes(token));
      const row = body.fluxdeskInternalTypes.find((r) => r.eventType === internalType);
      expect(row, token.slice(0, 12)).toMatchObject({ count: 2, lastSeenAt: expect.any(String) });
      expect(body.fluxdeskInternalTypes.find((r) => r.eventType === forged)).toBeUndefined();
      expect(body.fluxdeskInternalTypes.every((r) => r.eventType.startsWith('internal-os.'))).toBe(true);
    }
    expect((await ok(await eventTypes(tools.token))).yourEventTypes).toEqual([]);
  });

  it('counts only deliveries within the 90-day window', async () => {
    const tools = await adminTools(h);
    const c = await claimedEmployee(h, tools);
    const type = `${tools.prefix}window.check`;
    const internalType = `internal-os.${tag()}.window`;
    const fluxdesk = await fluxdeskSender();
    await sendTypes(c.token, { [type]: 1 });
    expect((await publish(h, fluxdesk, event(h, { event_type: internalType }))).status).toBe(202);
    h.clock.advance(45 * DAY_MS);
    await sendTypes(c.token, { [type]: 1 });
    const secondAt = h.clock.now().getTime();
    let body = await ok(await eventTypes(tools.token));
    expect(typesOf(body.yourEventTypes)).toEqual({ [type]: 2 });
    expect(typesOf(body.fluxdeskInternalTypes)[internalType]).toBe(1);

    h.clock.advance(46 * DAY_MS); // 91 days after the first delivery, 46 after the second
    body = await ok(await eventTypes(tools.token));
    expect(typesOf(body.yourEventTypes)).toEqual({ [type]: 1 });
    expect(Math.abs(Date.parse(body.yourEventTypes[0]!.lastSeenAt!) - secondAt)).toBeLessThan(60_000);
    expect(typesOf(body.fluxdeskInternalTypes)[internalType]).toBeUndefined();

    h.clock.advance(45 * DAY_MS);
    expect((await ok(await eventTypes(tools.token))).yourEventTypes).toEqual([]);
  });
});

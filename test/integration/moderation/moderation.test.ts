// Moderation tokens and the hold-for-forwarding queue (SPEC "What the service does" mode 2,
// "Side effects of a new delivery", Events rule 2, C `issue_admin_moderation_token`,
// `list_inbound_tokens` kind moderation): the token is issued by an admin (agent tool and CLI);
// its events land only in the owner's queue (no inbox row, no push); the admin lists, edits,
// forwards (notification for the target, admin as actor, event type as tag, no delivery row for
// the target) or dismisses them through ModerationService.
import { Code, ConnectError, createClient, type Client } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HeldEventStatus, ModerationService } from '../../../gen/fluxdesk/moderation/v1/moderation_pb.js';
import { ErrorInfoSchema } from '../../../gen/fluxdesk/common/v1/errors_pb.js';
import { bearer, closeSessions, transportFor, type Protocol } from '../../helpers/connect.js';
import { event, http, newPersonalToken, newUser, operator, publish, publishLegacy, startHarness, type Harness, type TestUser } from '../../helpers/harness.js';
import { sql, tag } from '../../helpers/tools.js';
import { expectInvalidParams, expectMissingScope, failed, FLAT_ADMIN_ONLY, memberAgent, ok } from '../mcp/admin-fixtures.js';
import { newAgent, type AgentUser } from '../mcp/rpc.js';
import { parseCommand } from '../../../src/transports/cli/commands.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  closeSessions();
  await h?.close();
});

interface ModFixture {
  admin: TestUser;
  agent: AgentUser;
  tokenId: string;
  token: string;
  prefix: string;
  catalogSlug: string;
}

/** An admin with an agent token (`*`) and a moderation token issued through the agent tool. */
async function moderation(label = `Vendor alerts ${tag()}`): Promise<ModFixture> {
  const admin = await newUser(h, 'admin');
  const agent = await newAgent(h, undefined, admin);
  const out = await ok(h, agent.token, 'issue_admin_moderation_token', { label });
  return { admin, agent, tokenId: out.token_id, token: out.token_value, prefix: out.allowed_event_prefix, catalogSlug: out.catalog_slug };
}

function client(token: string, protocol: Protocol = 'connect'): Client<typeof ModerationService> {
  return createClient(ModerationService, transportFor(h, protocol, [bearer(token)]));
}

async function connectErrorOf(p: Promise<unknown>): Promise<ConnectError> {
  try {
    await p;
  } catch (e) {
    return ConnectError.from(e);
  }
  throw new Error('expected the call to fail');
}
const codeOf = (err: ConnectError) => err.findDetails(ErrorInfoSchema)[0]?.code;

const modEvent = (m: ModFixture, over: Record<string, unknown> = {}) => event(h, { event_type: `${m.prefix}ticket.escalated`, ...over });

async function heldEntry(m: ModFixture, eventId: string) {
  const list = await client(m.agent.token).listHeldEvents({ all: true });
  return list.items.find((i) => i.eventId === eventId);
}

describe('issue_admin_moderation_token', () => {
  it('mints a personal-format moderation token owned by the admin, with its integrator and catalog row', async () => {
    const admin = await newUser(h, 'admin');
    const agent = await newAgent(h, ['admin:tokens'], admin);
    const label = `Billing Desk ${tag()}`;
    const out = await ok(h, agent.token, 'issue_admin_moderation_token', { label, source_note: 'vendor ticketing' });
    expect(out).toEqual({
      token_id: expect.any(String),
      token_value: expect.stringMatching(/^svc-in-pers-[A-Za-z0-9_-]{32}$/),
      catalog_row_id: expect.any(String),
      catalog_slug: expect.stringMatching(/^billing-desk-[0-9a-f]{8}\.inbound-token$/),
      daily_limit: 200,
      endpoint_url: expect.stringMatching(/\/api\/v1\/events$/),
      allowed_event_prefix: expect.stringMatching(/^billing-desk-[0-9a-f]{8}\.$/),
    });
    const [row] = await sql(h, 'select kind, owner_user_id, label, note, daily_limit, status from inbound_tokens where id = ?', [out.token_id]);
    expect(row).toEqual({ kind: 'moderation', owner_user_id: admin.userId, label, note: 'vendor ticketing', daily_limit: 200, status: 'active' });
    const [item] = await sql(h, 'select id, slug, category, contact_user_id from catalog_items where id = ?', [out.catalog_row_id]);
    expect(item).toEqual({ id: out.catalog_row_id, slug: out.catalog_slug, category: 'inbound-integration', contact_user_id: admin.userId });
    // Never stored in clear, not even in the audit.
    expect(JSON.stringify(await sql(h, 'select * from audit_log where token_id in (?, ?)', [out.token_id, agent.tokenId]))).not.toContain(out.token_value);

    const listed = await ok(h, (await newAgent(h, ['admin:catalog'], admin)).token, 'list_inbound_tokens', { kind: 'moderation' });
    expect(listed.items).toContainEqual(
      expect.objectContaining({ id: out.token_id, kind: 'moderation', owner_email: admin.email, linked_catalog_slug: out.catalog_slug }),
    );

    const custom = await ok(h, agent.token, 'issue_admin_moderation_token', { label, daily_limit: 1000 });
    expect(custom.daily_limit).toBe(1000);
    expect(custom.catalog_slug).not.toBe(out.catalog_slug);
  });

  it('admin only, scope admin:tokens, daily_limit 1-1000', async () => {
    const member = await memberAgent(h);
    expect(await failed(h, member.token, 'issue_admin_moderation_token', { label: 'x' })).toEqual(FLAT_ADMIN_ONLY);
    const admin = await newUser(h, 'admin');
    await expectMissingScope(h, (await newAgent(h, ['read:*'], admin)).token, 'issue_admin_moderation_token', { label: 'x' }, 'admin:tokens');
    const agent = await newAgent(h, undefined, admin);
    await expectInvalidParams(h, agent.token, 'issue_admin_moderation_token', { label: '' }, 'label');
    await expectInvalidParams(h, agent.token, 'issue_admin_moderation_token', { label: 'x', daily_limit: 0 }, 'daily_limit');
    await expectInvalidParams(h, agent.token, 'issue_admin_moderation_token', { label: 'x', daily_limit: 1001 }, 'daily_limit');
    expect(await sql(h, `select id from inbound_tokens where owner_user_id = ? and kind = 'moderation'`, [admin.userId])).toEqual([]);
  });

  it('CLI: moderation-token create --owner E --label L [--daily-limit N] -> {tokenId, token}; owner must be an admin', async () => {
    expect(parseCommand(['moderation-token', 'create', '--owner', 'a@x.test', '--label', 'L', '--daily-limit', '500'])).toEqual({
      op: 'moderation.create_token',
      input: { owner: 'a@x.test', label: 'L', daily_limit: 500 },
    });
    expect(parseCommand(['token', 'reset-breaker', '--token-id', 'abc'])).toEqual({ op: 'tokens.reset_circuit_breaker_operator', input: { token_id: 'abc' } });
    const admin = await newUser(h, 'admin');
    const out = await operator(h, 'moderation.create_token', { owner: admin.email, label: `cli ${tag()}` });
    expect(out).toEqual({ tokenId: expect.any(String), token: expect.stringMatching(/^svc-in-pers-/) });
    const [row] = await sql(h, 'select kind, daily_limit from inbound_tokens where id = ?', [out.tokenId]);
    expect(row).toEqual({ kind: 'moderation', daily_limit: 200 });
    // The legacy endpoint has no namespace gate.
    const r = await publishLegacy(h, out.token, event(h, { recipient: { type: 'email', value: admin.email } }));
    expect(r.status, r.text).toBe(202);
    const member = await newUser(h);
    await expect(operator(h, 'moderation.create_token', { owner: member.email, label: 'x' })).rejects.toThrow(/forbidden_admin_only/);
  });
});

describe('publishing with a moderation token', () => {
  it('needs recipient or recipient_hint on every event (400 schema_invalid / recipient_hint_required), on both endpoints', async () => {
    const m = await moderation();
    const r = await publish(h, m.token, modEvent(m));
    expect(r.status, r.text).toBe(400);
    expect(r.body.code).toBe('schema_invalid');
    expect(r.body.errors).toContainEqual(expect.objectContaining({ field: 'recipient_hint', code: 'recipient_hint_required' }));
    const legacy = await publishLegacy(h, m.token, modEvent(m));
    expect(legacy.status).toBe(400);
    expect(legacy.body).toMatchObject({ error: 'schema_invalid', reason: 'recipient_hint_required' });
    const both = await publish(h, m.token, modEvent(m, { recipient: { type: 'email', value: m.admin.email }, recipient_hint: { email: m.admin.email } }));
    expect(both.status).toBe(400);
    expect(await sql(h, 'select id from deliveries where token_id = ?', [m.tokenId])).toEqual([]);
    // A personal token must send neither.
    const p = await newPersonalToken(h);
    const personal = await publish(h, p.token, event(h, { recipient: { type: 'email', value: p.user.email } }));
    expect(personal.status).toBe(400);
    expect(personal.body.errors).toContainEqual(expect.objectContaining({ field: 'recipient', code: 'recipient_hint_forbidden' }));
  });

  it('lands only in the admin queue: a delivery, a pending entry, no inbox row, no nudge; a repeat refreshes the entry', async () => {
    const m = await moderation();
    const target = await newUser(h);
    const ev = modEvent(m, { severity: 'critical', title: 'Ticket 7 escalated', summary: 'first', recipient: { type: 'email', value: target.email } });
    const r = await publish(h, m.token, ev);
    expect(r.status, r.text).toBe(202);
    expect(r.body).toMatchObject({ deduped: false, pushed: false, recipientUserId: m.admin.userId });
    const deliveryId = r.body.deliveryId;
    expect(await sql(h, 'select id from notifications where delivery_id = ? or user_id in (?, ?)', [deliveryId, m.admin.userId, target.userId])).toEqual([]);
    expect(await sql(h, 'select id from nudge_outbox where delivery_id = ?', [deliveryId])).toEqual([]);
    // The owner's per-user inbox budget is not used by held events.
    expect(await sql(h, 'select count from user_daily_counts where user_id = ?', [m.admin.userId])).toEqual([]);

    const entry = await heldEntry(m, ev.event_id as string);
    expect(entry).toMatchObject({
      deliveryId,
      tokenId: m.tokenId,
      status: HeldEventStatus.PENDING,
      eventType: ev.event_type,
      severity: 'critical',
      title: 'Ticket 7 escalated',
      summary: 'first',
      suggestedEmail: target.email,
      fireCount: 1,
      edited: false,
    });

    const again = await publish(h, m.token, { ...ev, title: 'Ticket 7 escalated again', summary: 'second' });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ deduped: true, fireCount: 2, title: 'Ticket 7 escalated' });
    const refreshed = await heldEntry(m, ev.event_id as string);
    expect(refreshed).toMatchObject({ entryId: entry!.entryId, title: 'Ticket 7 escalated again', summary: 'second', fireCount: 2 });
    expect(await sql(h, 'select id from moderation_queue where delivery_id = ?', [deliveryId])).toHaveLength(1);
    // Read-back with the moderation token shows the original text.
    const back = await http(h, 'GET', `/api/v1/events/${deliveryId}`, { token: m.token });
    expect(back.body.title).toBe('Ticket 7 escalated');
  });
});

describe('ModerationService queue', () => {
  it('edit, then forward to the suggested recipient: one notification with the admin as actor and the event type as tag', async () => {
    const m = await moderation();
    const target = await newUser(h);
    const ev = modEvent(m, { title: 'Raw vendor title', external_url: 'https://vendor.example/t/9', recipient: { type: 'email', value: target.email } });
    expect((await publish(h, m.token, ev)).status).toBe(202);
    const entry = (await heldEntry(m, ev.event_id as string))!;
    const svc = client(m.agent.token);

    const edited = await svc.editHeldEvent({ entryId: entry.entryId, title: 'Invoice 9 needs your approval', summary: 'checked by admin' });
    expect(edited.entry).toMatchObject({ title: 'Invoice 9 needs your approval', summary: 'checked by admin', edited: true, status: HeldEventStatus.PENDING });
    // Once the admin edited it, a repeat does not overwrite the text.
    expect((await publish(h, m.token, { ...ev, title: 'Raw vendor title v2' })).status).toBe(200);
    expect((await heldEntry(m, ev.event_id as string))!.title).toBe('Invoice 9 needs your approval');

    const fwd = await svc.forwardHeldEvent({ entryId: entry.entryId });
    expect(fwd.entry).toMatchObject({ status: HeldEventStatus.FORWARDED, forwardedToUserId: target.userId, forwardedToEmail: target.email });
    const notes = await sql(h, 'select id, user_id, title, summary, actor_user_id, tags, delivery_id, target_url from notifications where user_id = ?', [
      target.userId,
    ]);
    expect(notes).toEqual([
      {
        id: fwd.entry!.notificationId,
        user_id: target.userId,
        title: 'Invoice 9 needs your approval',
        summary: 'checked by admin',
        actor_user_id: m.admin.userId,
        tags: [ev.event_type],
        delivery_id: null,
        target_url: 'https://vendor.example/t/9',
      },
    ]);
    expect(await sql(h, 'select id from deliveries where recipient_user_id = ?', [target.userId])).toEqual([]);
    expect(await sql(h, 'select id from nudge_outbox where user_id = ?', [target.userId])).toEqual([]);
    // The target sees it through the agent tools, actor and tag included.
    const targetAgent = await newAgent(h, ['read:inbox'], target);
    const detail = await ok(h, targetAgent.token, 'get_notification', { notificationId: fwd.entry!.notificationId });
    expect(detail).toMatchObject({ actor: { userId: m.admin.userId, email: m.admin.email }, tags: [ev.event_type], deliveryId: null });
    expect(await sql(h, `select action, actor_user_id from audit_log where target_id = ? order by created_at, action`, [entry.entryId])).toEqual([
      { action: 'moderation.event.edited', actor_user_id: m.admin.userId },
      { action: 'moderation.event.forwarded', actor_user_id: m.admin.userId },
    ]);

    // Forwarded entries are final.
    for (const attempt of [
      () => svc.forwardHeldEvent({ entryId: entry.entryId }),
      () => svc.editHeldEvent({ entryId: entry.entryId, title: 'x' }),
      () => svc.dismissHeldEvent({ entryId: entry.entryId }),
    ]) {
      const err = await connectErrorOf(attempt());
      expect(err.code).toBe(Code.Aborted);
      expect(codeOf(err)).toBe('invalid_state');
    }
    expect(await sql(h, 'select id from notifications where user_id = ?', [target.userId])).toHaveLength(1);
    // The pending list no longer shows it; status FORWARDED does.
    expect((await svc.listHeldEvents({})).items.map((i) => i.entryId)).not.toContain(entry.entryId);
    expect((await svc.listHeldEvents({ status: HeldEventStatus.FORWARDED })).items.map((i) => i.entryId)).toContain(entry.entryId);
  });

  it('forward to a chosen user over gRPC; unknown target 422-style failed_precondition; no target at all is invalid_argument', async () => {
    const m = await moderation();
    const chosen = await newUser(h);
    const ev = modEvent(m, { recipient_hint: { display_hint: 'someone in finance' } });
    const r = await publish(h, m.token, ev);
    expect(r.status, r.text).toBe(202);
    expect(r.body.deprecation).toEqual(expect.any(String));
    const entry = (await heldEntry(m, ev.event_id as string))!;
    expect(entry.suggestedEmail).toBeUndefined();
    expect(entry.recipientDisplayHint).toBe('someone in finance');
    const svc = client(m.agent.token, 'grpc');
    const none = await connectErrorOf(svc.forwardHeldEvent({ entryId: entry.entryId }));
    expect(none.code).toBe(Code.InvalidArgument);
    const unknown = await connectErrorOf(svc.forwardHeldEvent({ entryId: entry.entryId, email: `nobody-${tag()}@example.test` }));
    expect(unknown.code).toBe(Code.FailedPrecondition);
    expect(codeOf(unknown)).toBe('user_not_found');
    const out = await svc.forwardHeldEvent({ entryId: entry.entryId, email: chosen.email });
    expect(out.entry?.forwardedToUserId).toBe(chosen.userId);
    expect(await sql(h, 'select tags from notifications where user_id = ?', [chosen.userId])).toEqual([{ tags: [ev.event_type] }]);
  });

  it('dismiss is idempotent; other admins and members cannot see or touch the queue', async () => {
    const m = await moderation();
    const ev = modEvent(m, { recipient: { type: 'email', value: m.admin.email } });
    expect((await publish(h, m.token, ev)).status).toBe(202);
    const entry = (await heldEntry(m, ev.event_id as string))!;

    const otherAdmin = await newAgent(h, undefined, await newUser(h, 'admin'));
    const other = client(otherAdmin.token);
    expect((await other.listHeldEvents({ all: true })).items).toEqual([]);
    for (const attempt of [
      () => other.forwardHeldEvent({ entryId: entry.entryId }),
      () => other.editHeldEvent({ entryId: entry.entryId, title: 'x' }),
      () => other.dismissHeldEvent({ entryId: entry.entryId }),
    ]) {
      expect((await connectErrorOf(attempt())).code).toBe(Code.NotFound);
    }
    const member = await newAgent(h);
    const denied = await connectErrorOf(client(member.token).listHeldEvents({}));
    expect(denied.code).toBe(Code.PermissionDenied);
    expect(codeOf(denied)).toBe('forbidden_admin_only');
    const noScope = await connectErrorOf(client((await newAgent(h, ['read:inbox'], m.admin)).token).dismissHeldEvent({ entryId: entry.entryId }));
    expect(noScope.code).toBe(Code.PermissionDenied);
    expect(codeOf(noScope)).toBe('missing_scope');

    const svc = client(m.agent.token, 'grpc-web');
    const bad = await connectErrorOf(svc.editHeldEvent({ entryId: entry.entryId }));
    expect(bad.code).toBe(Code.InvalidArgument);
    const d1 = await svc.dismissHeldEvent({ entryId: entry.entryId, reason: 'spam' });
    expect(d1.entry).toMatchObject({ status: HeldEventStatus.DISMISSED, dismissReason: 'spam' });
    const d2 = await svc.dismissHeldEvent({ entryId: entry.entryId });
    expect(d2.entry).toMatchObject({ status: HeldEventStatus.DISMISSED, dismissReason: 'spam' });
    expect((await connectErrorOf(svc.forwardHeldEvent({ entryId: entry.entryId }))).code).toBe(Code.Aborted);
    expect(await sql(h, `select count(*)::int as n from audit_log where action = 'moderation.event.dismissed' and target_id = ?`, [entry.entryId])).toEqual([
      { n: 1 },
    ]);
  });
});

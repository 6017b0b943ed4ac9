// AccountService over Connect (one flow also over gRPC and gRPC-Web): a user's own personal
// tokens through their agent token (SPEC "Personal token lifecycle", Authentication 4-6), admin
// emergency revoke and offboarding, agent-token self-management and the scope rules (SPEC "Agent
// token scopes").
import { toJsonString } from '@bufbuild/protobuf';
import { Code, ConnectError, createClient, type Client } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountService, ListAgentTokensResponseSchema, ListPersonalTokensResponseSchema } from '../../../gen/fluxdesk/account/v1/account_pb.js';
import { ErrorInfoSchema, ValidationErrorDetailSchema } from '../../../gen/fluxdesk/common/v1/errors_pb.js';
import { bearer, closeSessions, transportFor, type Protocol } from '../../helpers/connect.js';
import { event, newUser, operator, publish, startHarness, uniqueEmail, type Harness, type HttpResult, type TestUser } from '../../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  closeSessions();
  await h?.close();
});

const HOUR = 60 * 60 * 1000;
const sql = (q: string, params: unknown[] = []) => h.svc.deps.orm.em.getConnection().execute(q, params) as Promise<any[]>;

function account(token: string | undefined, protocol: Protocol = 'connect'): Client<typeof AccountService> {
  return createClient(AccountService, transportFor(h, protocol, [bearer(token)]));
}

async function connectErrorOf(p: Promise<unknown>): Promise<ConnectError> {
  try {
    await p;
  } catch (e) {
    return ConnectError.from(e);
  }
  throw new Error('expected the call to fail');
}
const errorInfo = (err: ConnectError) => err.findDetails(ErrorInfoSchema)[0];

interface Agent {
  user: TestUser;
  token: string;
  tokenId: string;
}

/** A fresh user (role `member` unless told) with an agent token holding `scopes` (default `*`). */
async function agent(opts: { scopes?: string[]; role?: string; user?: TestUser } = {}): Promise<Agent> {
  const user = opts.user ?? (await newUser(h, opts.role ?? 'member'));
  const t = await operator<{ tokenId: string; token: string }>(h, 'agent_tokens.create', {
    email: user.email,
    ...(opts.scopes ? { scopes: opts.scopes } : {}),
  });
  return { user, token: t.token, tokenId: t.tokenId };
}

function expect401(r: HttpResult, code: string) {
  expect(r.status).toBe(401);
  expect(r.body.code).toBe(code);
}

describe('personal tokens through AccountService', () => {
  it('IssuePersonalToken returns the value once; ListPersonalTokens never shows values but shows the callback secret', async () => {
    const a = await agent();
    const c = account(a.token);
    const issued = await c.issuePersonalToken({ label: 'CI alerts', dailyLimit: 200 });
    expect(issued.tokenValue).toMatch(/^svc-in-pers-[A-Za-z0-9_-]{32}$/);
    expect(issued.endpointUrl).toMatch(/\/api\/internal-os\/integrations\/inbound\/personal$/);
    expect((await publish(h, issued.tokenValue, event(h))).status).toBe(202);

    const listed = await c.listPersonalTokens({});
    expect(listed.tokens).toHaveLength(1);
    const t = listed.tokens[0]!;
    expect(t).toMatchObject({ tokenId: issued.tokenId, kind: 'personal', label: 'CI alerts', status: 'active', dailyLimit: 200 });
    expect(t.callbackSecret).toMatch(/^[0-9a-f]{64}$/);
    expect(issued.tokenValue.startsWith(t.displayPrefix)).toBe(true);
    expect(toJsonString(ListPersonalTokensResponseSchema, listed)).not.toContain(issued.tokenValue);
    expect(t.note).toBeUndefined();
  });

  it('a note given at creation is listed with the token; a note over 500 chars is refused and nothing is created', async () => {
    const a = await agent();
    const c = account(a.token);
    const { tokenId } = await c.issuePersonalToken({ label: 'noted', note: 'Publishes from the nightly pipeline' });
    expect((await c.listPersonalTokens({})).tokens.find((t) => t.tokenId === tokenId)?.note).toBe('Publishes from the nightly pipeline');
    const bad = await c.issuePersonalToken({ label: 'too long', note: 'x'.repeat(501) }).then(
      () => undefined,
      (e) => ConnectError.from(e),
    );
    expect(bad?.code).toBe(Code.InvalidArgument);
    expect(bad?.findDetails(ValidationErrorDetailSchema)[0]?.violations.map((v) => v.field)).toEqual(['note']);
    expect((await c.listPersonalTokens({})).tokens.map((t) => t.label)).toEqual(['noted']);
  });

  it('disable -> 401 token_revoked; enable -> works again; both idempotent', async () => {
    const a = await agent();
    const c = account(a.token);
    const { tokenId, tokenValue } = await c.issuePersonalToken({ label: 'toggle' });

    expect(await c.disablePersonalToken({ tokenId })).toMatchObject({ tokenId, status: 'disabled' });
    expect401(await publish(h, tokenValue, event(h)), 'token_revoked');
    expect((await c.disablePersonalToken({ tokenId })).status).toBe('disabled');

    expect(await c.enablePersonalToken({ tokenId })).toMatchObject({ tokenId, status: 'active' });
    expect((await publish(h, tokenValue, event(h))).status).toBe(202);
    expect((await c.enablePersonalToken({ tokenId })).status).toBe('active');
  });

  it('rotate: the new value works at once, the old one until 24 h + 1 s, with a new callback secret', async () => {
    const a = await agent();
    const c = account(a.token);
    const { tokenId, tokenValue: old } = await c.issuePersonalToken({ label: 'rotating' });
    const secretBefore = (await c.listPersonalTokens({})).tokens[0]!.callbackSecret;

    const before = h.clock.now().getTime();
    const rotated = await c.rotatePersonalToken({ tokenId });
    expect(rotated.tokenId).toBe(tokenId);
    expect(rotated.token).toMatch(/^svc-in-pers-/);
    expect(rotated.token).not.toBe(old);
    expect(rotated.callbackSecret).toMatch(/^[0-9a-f]{64}$/);
    expect(rotated.callbackSecret).not.toBe(secretBefore);
    expect((await c.listPersonalTokens({})).tokens[0]!.callbackSecret).toBe(rotated.callbackSecret);
    const overlapEnd = Number(rotated.expiresPriorAt!.seconds) * 1000;
    expect(overlapEnd).toBeGreaterThanOrEqual(before + 24 * HOUR - 1000);
    expect(overlapEnd).toBeLessThanOrEqual(h.clock.now().getTime() + 24 * HOUR);

    expect((await publish(h, rotated.token, event(h))).status).toBe(202);
    expect((await publish(h, old, event(h))).status).toBe(202);

    h.clock.advance(24 * HOUR + 1000);
    expect401(await publish(h, old, event(h)), 'token_revoked');
    expect((await publish(h, rotated.token, event(h))).status).toBe(202);
  });

  it('delete -> 401 token_revoked; deleting again succeeds; a revoked token can be neither enabled nor rotated', async () => {
    const a = await agent();
    const c = account(a.token);
    const { tokenId, tokenValue } = await c.issuePersonalToken({ label: 'doomed' });
    expect(await c.deletePersonalToken({ tokenId })).toMatchObject({ revoked: true });
    expect401(await publish(h, tokenValue, event(h)), 'token_revoked');
    expect(await c.deletePersonalToken({ tokenId })).toMatchObject({ revoked: true });
    expect((await c.listPersonalTokens({})).tokens[0]).toMatchObject({ status: 'revoked' });
    expect((await c.listPersonalTokens({})).tokens[0]!.revokedAt).toBeDefined();

    for (const run of [() => c.enablePersonalToken({ tokenId }), () => c.rotatePersonalToken({ tokenId })]) {
      const err = await connectErrorOf(run());
      expect(err.code).toBe(Code.Aborted);
      expect(errorInfo(err)?.code).toBe('invalid_state');
    }
  });

  it("another user's token is not found, and a bad id is invalid", async () => {
    const owner = await agent();
    const { tokenId } = await account(owner.token).issuePersonalToken({ label: 'mine' });
    const other = account((await agent()).token);
    for (const run of [
      () => other.disablePersonalToken({ tokenId }),
      () => other.rotatePersonalToken({ tokenId }),
      () => other.deletePersonalToken({ tokenId }),
    ]) {
      expect((await connectErrorOf(run())).code).toBe(Code.NotFound);
    }
    const bad = await connectErrorOf(other.deletePersonalToken({ tokenId: 'nope' }));
    expect(bad.code).toBe(Code.InvalidArgument);
    expect(bad.findDetails(ValidationErrorDetailSchema)[0]?.violations.map((v) => v.field)).toEqual(['token_id']);
  });
});

describe('admin oversight', () => {
  it('AdminRevokeToken by a non-admin is PermissionDenied, even with every scope', async () => {
    const owner = await agent();
    const { tokenId } = await account(owner.token).issuePersonalToken({ label: 'x' });
    const err = await connectErrorOf(account((await agent()).token).adminRevokeToken({ tokenId, reason: 'no' }));
    expect(err.code).toBe(Code.PermissionDenied);
    expect(errorInfo(err)?.code).toBe('forbidden_admin_only');
  });

  it('AdminRevokeToken by an admin revokes, notifies the owner with the reason and audits; idempotent', async () => {
    const owner = await agent();
    const { tokenId, tokenValue } = await account(owner.token).issuePersonalToken({ label: 'leaky' });
    const admin = await agent({ role: 'admin' });
    expect(await account(admin.token).adminRevokeToken({ tokenId, reason: 'posted in a public channel' })).toMatchObject({ revoked: true });
    expect401(await publish(h, tokenValue, event(h)), 'token_revoked');

    const notes = await sql(`select title, summary, actor_user_id from notifications where user_id = ?`, [owner.user.userId]);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatchObject({
      title: 'Your token "leaky" was revoked by an admin',
      summary: 'Reason: posted in a public channel',
      actor_user_id: admin.user.userId,
    });
    const audit = await sql(`select actor_user_id, source, summary from audit_log where action = 'inbound.token.revoked_by_admin' and token_id = ?`, [tokenId]);
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      actor_user_id: admin.user.userId,
      source: 'connect',
      summary: { reason: 'posted in a public channel', owner_user_id: owner.user.userId },
    });

    expect(await account(admin.token).adminRevokeToken({ tokenId })).toMatchObject({ revoked: true });
    expect(await sql(`select id from notifications where user_id = ?`, [owner.user.userId])).toHaveLength(1);
  });

  it('AdminRevokeToken needs admin:tokens; an admin without it is refused naming the scope', async () => {
    const admin = await agent({ role: 'admin', scopes: ['write:inbox'] });
    const err = await connectErrorOf(account(admin.token).adminRevokeToken({ tokenId: crypto.randomUUID() }));
    expect(err.code).toBe(Code.PermissionDenied);
    expect(errorInfo(err)?.code).toBe('missing_scope');
    expect(err.rawMessage).toContain('admin:tokens');
  });

  it('OffboardUser revokes every inbound and agent token of the user at once', async () => {
    const leaver = await agent();
    const c = account(leaver.token);
    const t1 = await c.issuePersonalToken({ label: 'one' });
    const t2 = await c.issuePersonalToken({ label: 'two' });
    const second = await c.createAgentToken({ scopes: ['write:inbox'] });
    expect((await publish(h, t1.tokenValue, event(h))).status).toBe(202);

    const admin = await agent({ role: 'admin' });
    const out = await account(admin.token).offboardUser({ email: leaver.user.email });
    expect(out).toMatchObject({ userId: leaver.user.userId, status: 'offboarded', tokensRevoked: 4 });

    expect401(await publish(h, t1.tokenValue, event(h)), 'token_revoked');
    expect401(await publish(h, t2.tokenValue, event(h)), 'token_revoked');
    for (const token of [leaver.token, second.token]) {
      const err = await connectErrorOf(account(token).listPersonalTokens({}));
      expect(err.code).toBe(Code.Unauthenticated);
      expect(errorInfo(err)?.code).toBe('token_revoked');
    }
    const rows = await sql(`select status from inbound_tokens where owner_user_id = ?`, [leaver.user.userId]);
    expect(rows.map((r) => r.status)).toEqual(['revoked', 'revoked']);
    expect(await sql(`select id from agent_tokens where user_id = ? and revoked_at is null`, [leaver.user.userId])).toEqual([]);
  });

  it('OffboardUser by a non-admin is PermissionDenied', async () => {
    const target = await newUser(h);
    const err = await connectErrorOf(account((await agent()).token).offboardUser({ email: target.email }));
    expect(err.code).toBe(Code.PermissionDenied);
  });
});

describe('scopes and authentication', () => {
  it('a token without write:inbox is PermissionDenied naming the missing scope', async () => {
    const a = await agent({ scopes: ['read:inbox'] });
    const c = account(a.token);
    const calls = [
      () => c.issuePersonalToken({ label: 'x' }),
      () => c.listPersonalTokens({}),
      () => c.createAgentToken({}),
      () => c.listAgentTokens({}),
      () => c.revokeAgentToken({ tokenId: a.tokenId }),
      () => c.startConnectSession({}),
      () => c.clickAction({ deliveryId: crypto.randomUUID(), actionIndex: 0 }),
    ];
    for (const run of calls) {
      const err = await connectErrorOf(run());
      expect(err.code).toBe(Code.PermissionDenied);
      expect(errorInfo(err)?.code).toBe('missing_scope');
      expect(errorInfo(err)?.metadata.required_scope).toBe('write:inbox');
      expect(err.rawMessage).toContain('write:inbox');
    }
  });

  it('no token, an inbound token or an unknown agent token is Unauthenticated', async () => {
    expect(errorInfo(await connectErrorOf(account(undefined).listPersonalTokens({})))?.code).toBe('missing_or_invalid_authorization');
    const a = await agent();
    const { tokenValue } = await account(a.token).issuePersonalToken({ label: 'x' });
    expect(errorInfo(await connectErrorOf(account(tokenValue).listPersonalTokens({})))?.code).toBe('token_mismatch');
    expect(errorInfo(await connectErrorOf(account('sk-svc-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA').listPersonalTokens({})))?.code).toBe('token_not_found');
  });
});

describe('agent tokens', () => {
  it('CreateAgentToken with no scopes gives `*`; the value works and is never listed', async () => {
    const a = await agent();
    const c = account(a.token);
    const created = await c.createAgentToken({ label: 'laptop' });
    expect(created.token).toMatch(/^sk-svc-[A-Za-z0-9_-]{32}$/);
    expect(created.scopes).toEqual(['*']);

    const listed = await account(created.token).listAgentTokens({});
    expect(listed.tokens.map((t) => t.tokenId).sort()).toEqual([a.tokenId, created.tokenId].sort());
    const mine = listed.tokens.find((t) => t.tokenId === created.tokenId)!;
    expect(mine).toMatchObject({ label: 'laptop', scopes: ['*'], current: true });
    expect(listed.tokens.find((t) => t.tokenId === a.tokenId)!.current).toBe(false);
    expect(created.token.startsWith(mine.displayPrefix)).toBe(true);
    const text = toJsonString(ListAgentTokensResponseSchema, listed);
    expect(text).not.toContain(created.token);
    expect(text).not.toContain(a.token);
  });

  it("scopes wider than the caller's own are refused (403); narrower or equal ones are granted", async () => {
    const a = await agent({ scopes: ['write:inbox', 'read:*'] });
    const c = account(a.token);
    for (const scopes of [[], ['*'], ['write:tasks'], ['admin:*'], ['write:*']]) {
      const err = await connectErrorOf(c.createAgentToken({ scopes }));
      expect(err.code, JSON.stringify(scopes)).toBe(Code.PermissionDenied);
      expect(errorInfo(err)?.code).toBe('scope_escalation');
    }
    const ok = await c.createAgentToken({ scopes: ['read:inbox', 'read:*', 'write:inbox', 'read:inbox'] });
    expect(ok.scopes).toEqual(['read:inbox', 'read:*', 'write:inbox']);
    expect(await sql(`select scopes from agent_tokens where id = ?`, [ok.tokenId])).toEqual([{ scopes: ['read:inbox', 'read:*', 'write:inbox'] }]);

    // admin:catalog satisfies admin:tokens (one-way superset), so it may hand that on.
    const catalogAdmin = await agent({ scopes: ['write:inbox', 'admin:catalog'], role: 'admin' });
    expect((await account(catalogAdmin.token).createAgentToken({ scopes: ['admin:tokens'] })).scopes).toEqual(['admin:tokens']);
    expect((await connectErrorOf(account(catalogAdmin.token).createAgentToken({ scopes: ['admin:*'] }))).code).toBe(Code.PermissionDenied);
  });

  it('malformed scopes are InvalidArgument', async () => {
    const err = await connectErrorOf(account((await agent()).token).createAgentToken({ scopes: ['Read Inbox'] }));
    expect(err.code).toBe(Code.InvalidArgument);
  });

  it('RevokeAgentToken is immediate, idempotent, and only for own tokens', async () => {
    const a = await agent();
    const c = account(a.token);
    const victim = await c.createAgentToken({ scopes: ['write:inbox'] });
    expect((await account(victim.token).listAgentTokens({})).tokens.length).toBe(2);

    const stranger = await agent();
    expect((await connectErrorOf(account(stranger.token).revokeAgentToken({ tokenId: victim.tokenId }))).code).toBe(Code.NotFound);

    expect(await c.revokeAgentToken({ tokenId: victim.tokenId })).toMatchObject({ revoked: true });
    const err = await connectErrorOf(account(victim.token).listAgentTokens({}));
    expect(err.code).toBe(Code.Unauthenticated);
    expect(errorInfo(err)?.code).toBe('token_revoked');
    expect(await c.revokeAgentToken({ tokenId: victim.tokenId })).toMatchObject({ revoked: true });
    const listed = (await c.listAgentTokens({})).tokens.find((t) => t.tokenId === victim.tokenId)!;
    expect(listed.revokedAt).toBeDefined();

    // A token may revoke itself; its next call is refused.
    expect(await c.revokeAgentToken({ tokenId: a.tokenId })).toMatchObject({ revoked: true });
    expect(errorInfo(await connectErrorOf(c.listAgentTokens({})))?.code).toBe('token_revoked');
  });
});

describe.each(['grpc', 'grpc-web'] as Protocol[])('AccountService over %s', (protocol) => {
  it('issues, lists, rotates and deletes a personal token', async () => {
    const a = await agent();
    const c = account(a.token, protocol);
    const { tokenId } = await c.issuePersonalToken({ label: protocol });
    expect((await c.listPersonalTokens({})).tokens.map((t) => t.tokenId)).toEqual([tokenId]);
    expect((await c.rotatePersonalToken({ tokenId })).tokenId).toBe(tokenId);
    expect((await c.deletePersonalToken({ tokenId })).revoked).toBe(true);
    const err = await connectErrorOf(account(a.token, protocol).adminRevokeToken({ tokenId }));
    expect(err.code).toBe(Code.PermissionDenied);
  });
});

it('OffboardUser for an unknown email is FailedPrecondition user-not-found', async () => {
  const admin = await agent({ role: 'admin' });
  const err = await connectErrorOf(account(admin.token).offboardUser({ email: uniqueEmail('ghost') }));
  expect(err.code).toBe(Code.FailedPrecondition);
  expect(errorInfo(err)).toMatchObject({ code: 'user_not_found', type: 'user-not-found' });
});

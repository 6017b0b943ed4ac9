// AccountService.AdminListTokens (token oversight; SPEC Authentication 6): every
// user's inbound tokens with owner, label, kind, status and last use, never a value, hash, display
// prefix or callback signing secret; filters kind / include_revoked / limit; admin only with scope
// admin:tokens (a member gets permission_denied `forbidden_admin_only`, an admin without the scope
// `missing_scope`); bad input is invalid_argument listing every field.
import { toJsonString } from '@bufbuild/protobuf';
import { Code, ConnectError, createClient, type Client } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountService, AdminListTokensResponseSchema } from '../../../gen/fluxdesk/account/v1/account_pb.js';
import { ErrorInfoSchema, ValidationErrorDetailSchema } from '../../../gen/fluxdesk/common/v1/errors_pb.js';
import { bearer, closeSessions, transportFor } from '../../helpers/connect.js';
import { event, newUser, operator, publish, startHarness, type Harness, type TestUser } from '../../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  closeSessions();
  await h?.close();
});

const sql = (q: string, params: unknown[] = []) => h.svc.deps.orm.em.fork().getConnection().execute(q, params) as Promise<any[]>;

function account(token: string): Client<typeof AccountService> {
  return createClient(AccountService, transportFor(h, 'connect', [bearer(token)]));
}

async function connectErrorOf(p: Promise<unknown>): Promise<ConnectError> {
  try {
    await p;
  } catch (e) {
    return ConnectError.from(e);
  }
  throw new Error('expected the call to fail');
}

/** A fresh user with an agent token (scopes `*` unless told). */
async function agent(opts: { role?: string; scopes?: string[] } = {}): Promise<{ user: TestUser; token: string }> {
  const user = await newUser(h, opts.role ?? 'member');
  const t = await operator<{ token: string }>(h, 'agent_tokens.create', { email: user.email, ...(opts.scopes ? { scopes: opts.scopes } : {}) });
  return { user, token: t.token };
}

const MAX = 500;

describe('AdminListTokens', () => {
  it('lists every user’s tokens with owner, label, kind, status and last use; never a value, hash, prefix or secret', async () => {
    const owner = await agent();
    const own = account(owner.token);
    const used = await own.issuePersonalToken({ label: 'Nightly build', dailyLimit: 500 });
    const unused = await own.issuePersonalToken({ label: 'Spare' });
    expect((await publish(h, used.tokenValue, event(h))).status).toBe(202);
    const admin = await agent({ role: 'admin' });

    const res = await account(admin.token).adminListTokens({ limit: MAX });
    const mine = res.tokens.filter((t) => t.ownerUserId === owner.user.userId);
    expect(mine.map((t) => t.tokenId)).toEqual([unused.tokenId, used.tokenId]);
    const row = mine[1]!;
    expect(row).toMatchObject({
      tokenId: used.tokenId,
      kind: 'personal',
      label: 'Nightly build',
      status: 'active',
      ownerUserId: owner.user.userId,
      ownerEmail: owner.user.email,
      dailyLimit: 500,
    });
    expect(row.createdAt).toBeDefined();
    expect(row.lastUsedAt).toBeDefined();
    expect(row.revokedAt).toBeUndefined();
    expect(mine[0]!.lastUsedAt).toBeUndefined();

    // The whole answer never carries a value, a hash, a display prefix or a callback secret.
    const json = toJsonString(AdminListTokensResponseSchema, res);
    const secrets = await sql(`select token_hash, display_prefix, callback_secret from inbound_tokens where id in (?, ?)`, [used.tokenId, unused.tokenId]);
    for (const v of [used.tokenValue, unused.tokenValue, ...secrets.flatMap((s) => [s.token_hash, s.display_prefix, s.callback_secret])]) {
      expect(json).not.toContain(v);
    }
    expect(json).not.toMatch(/svc-in-pers-/);
  });

  it('filters: kind, include_revoked (revoked ones with time and reason), limit', async () => {
    const owner = await agent();
    const { tokenId } = await account(owner.token).issuePersonalToken({ label: 'Leaky' });
    const admin = await agent({ role: 'admin' });
    const mod = await operator<{ tokenId: string }>(h, 'moderation.create_token', { owner: admin.user.email, label: 'Vendor desk' });
    const c = account(admin.token);
    expect(await c.adminRevokeToken({ tokenId, reason: 'posted in a public channel' })).toMatchObject({ revoked: true });

    const live = await c.adminListTokens({ limit: MAX });
    expect(live.tokens.map((t) => t.tokenId)).not.toContain(tokenId);
    expect(live.tokens.every((t) => t.status !== 'revoked')).toBe(true);

    const all = await c.adminListTokens({ includeRevoked: true, kind: 'personal', limit: MAX });
    expect(all.tokens.every((t) => t.kind === 'personal')).toBe(true);
    const revoked = all.tokens.find((t) => t.tokenId === tokenId);
    expect(revoked).toMatchObject({ status: 'revoked', revokedReason: 'posted in a public channel', ownerEmail: owner.user.email });
    expect(revoked!.revokedAt).toBeDefined();

    const mods = await c.adminListTokens({ kind: 'moderation', limit: MAX });
    expect(mods.tokens.every((t) => t.kind === 'moderation')).toBe(true);
    expect(mods.tokens.find((t) => t.tokenId === mod.tokenId)).toMatchObject({ label: 'Vendor desk', ownerEmail: admin.user.email, status: 'active' });

    expect((await c.adminListTokens({ limit: 1 })).tokens).toHaveLength(1);
    // Newest first.
    const times = (await c.adminListTokens({ limit: 20 })).tokens.map((t) => Number(t.createdAt!.seconds));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
  });

  it('a member is refused with permission_denied forbidden_admin_only, even with every scope', async () => {
    const member = await agent();
    const err = await connectErrorOf(account(member.token).adminListTokens({}));
    expect(err.code).toBe(Code.PermissionDenied);
    expect(err.findDetails(ErrorInfoSchema)[0]?.code).toBe('forbidden_admin_only');
  });

  it('an admin without admin:tokens is refused with missing_scope naming it', async () => {
    const admin = await agent({ role: 'admin', scopes: ['write:inbox', 'read:inbox'] });
    const err = await connectErrorOf(account(admin.token).adminListTokens({}));
    expect(err.code).toBe(Code.PermissionDenied);
    expect(err.findDetails(ErrorInfoSchema)[0]?.code).toBe('missing_scope');
    expect(err.rawMessage).toContain('admin:tokens');
  });

  it('bad input is invalid_argument listing every bad field', async () => {
    const admin = await agent({ role: 'admin' });
    const c = account(admin.token);
    const err = await connectErrorOf(c.adminListTokens({ kind: 'agent', limit: 0 }));
    expect(err.code).toBe(Code.InvalidArgument);
    expect(err.findDetails(ErrorInfoSchema)[0]?.code).toBeDefined();
    const fields = err.findDetails(ValidationErrorDetailSchema).flatMap((d) => d.violations.map((e) => e.field));
    expect(fields).toEqual(expect.arrayContaining(['kind', 'limit']));
    const over = await connectErrorOf(c.adminListTokens({ limit: MAX + 1 }));
    expect(over.code).toBe(Code.InvalidArgument);
    expect(over.findDetails(ValidationErrorDetailSchema).flatMap((d) => d.violations.map((e) => e.field))).toEqual(['limit']);
  });
});

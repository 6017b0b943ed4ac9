// One-click client setup (SPEC section B, `POST /api/internal-os/agent/connect-callback`): a
// signed-in user (AccountService.StartConnectSession) or an operator (`fluxdesk agent-connect`)
// starts a 10-minute, single-use connect session; the AI client exchanges its id, without a
// bearer, for a real agent token exactly once. Unknown, expired and reused sessions get the same
// 400 invalid_session.
import { createHash } from 'node:crypto';
import { Code, ConnectError, createClient, type Client } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountService } from '../../../gen/fluxdesk/account/v1/account_pb.js';
import { ErrorInfoSchema } from '../../../gen/fluxdesk/common/v1/errors_pb.js';
import { bearer, closeSessions, transportFor } from '../../helpers/connect.js';
import { http, newUser, operator, startHarness, type Harness, type HttpResult, type TestUser } from '../../helpers/harness.js';
import { parseCommand } from '../../../src/transports/cli/commands.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  closeSessions();
  await h?.close();
});

const MINUTE = 60 * 1000;
const sql = (q: string, params: unknown[] = []) => h.svc.deps.orm.em.getConnection().execute(q, params) as Promise<any[]>;
const exchange = (body: unknown, headers?: Record<string, string>): Promise<HttpResult> =>
  http(h, 'POST', '/api/internal-os/agent/connect-callback', { body, headers });

async function signedIn(scopes?: string[]): Promise<{ user: TestUser; token: string; account: Client<typeof AccountService> }> {
  const user = await newUser(h);
  const { token } = await operator<{ token: string }>(h, 'agent_tokens.create', { email: user.email, ...(scopes ? { scopes } : {}) });
  return { user, token, account: createClient(AccountService, transportFor(h, 'connect', [bearer(token)])) };
}

async function connectErrorOf(p: Promise<unknown>): Promise<ConnectError> {
  try {
    await p;
  } catch (e) {
    return ConnectError.from(e);
  }
  throw new Error('expected the call to fail');
}

function expectInvalidSession(r: HttpResult) {
  expect(r.status).toBe(400);
  expect(r.body.error).toBe('invalid_session');
  expect(r.text).not.toMatch(/expired at|used at|not found/i);
}

describe('connect-callback', () => {
  it('exchanges a session started over AccountService for an agent token, exactly once', async () => {
    const me = await signedIn();
    const before = h.clock.now().getTime();
    const started = await me.account.startConnectSession({ scopes: ['read:inbox', 'write:inbox'], label: 'Claude Desktop' });
    expect(started.sessionId).toMatch(/^cs_[A-Za-z0-9_-]{43}$/);
    const expiresAt = Number(started.expiresAt!.seconds) * 1000;
    expect(expiresAt).toBeGreaterThanOrEqual(before + 10 * MINUTE - 1000);
    expect(expiresAt).toBeLessThanOrEqual(h.clock.now().getTime() + 10 * MINUTE);

    // No bearer: the session id is the credential.
    const r = await exchange({ session_id: started.sessionId });
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(Object.keys(r.body).sort()).toEqual(['mcp_url', 'scopes', 'token', 'token_id', 'user_email']);
    expect(r.body.token).toMatch(/^sk-svc-[A-Za-z0-9_-]{32}$/);
    expect(r.body).toMatchObject({ scopes: ['read:inbox', 'write:inbox'], user_email: me.user.email, mcp_url: `${h.svc.deps.config.publicBaseUrl}/mcp` });

    // The new token is the user's, with the chosen scopes and label.
    const rows = await sql(`select user_id, label, scopes, revoked_at from agent_tokens where id = ?`, [r.body.token_id]);
    expect(rows).toEqual([{ user_id: me.user.userId, label: 'Claude Desktop', scopes: ['read:inbox', 'write:inbox'], revoked_at: null }]);
    const fresh = createClient(AccountService, transportFor(h, 'connect', [bearer(r.body.token)]));
    const listed = await fresh.listAgentTokens({});
    expect(listed.tokens.find((t) => t.current)?.tokenId).toBe(r.body.token_id);
    // ...and it works at /mcp.
    const whoami = await http(h, 'POST', '/mcp', {
      token: r.body.token,
      body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami' } },
      headers: { accept: 'application/json, text/event-stream' },
    });
    expect(whoami.status).toBe(200);
    expect(JSON.parse(whoami.body.result.content[0].text)).toMatchObject({ email: me.user.email, scopes: ['read:inbox', 'write:inbox'] });

    // Single use.
    expectInvalidSession(await exchange({ session_id: started.sessionId }));
    expect(await sql(`select id from agent_tokens where user_id = ?`, [me.user.userId])).toHaveLength(2);
  });

  it('reused, expired and unknown sessions get the same answer', async () => {
    const me = await signedIn();
    const used = (await me.account.startConnectSession({})).sessionId;
    expect((await exchange({ session_id: used })).status).toBe(200);
    const expiring = (await me.account.startConnectSession({})).sessionId;
    h.clock.advance(10 * MINUTE + 1000);

    const answers = [
      await exchange({ session_id: used }),
      await exchange({ session_id: expiring }),
      await exchange({ session_id: `cs_${'A'.repeat(43)}` }),
      await exchange({ session_id: 'whatever' }),
    ];
    for (const a of answers) expectInvalidSession(a);
    expect(new Set(answers.map((a) => a.text)).size).toBe(1);
    expect(answers[0]!.body).toMatchObject({ error: 'invalid_session', field: 'session_id' });
  });

  it('a session just before its expiry still works', async () => {
    const me = await signedIn();
    const s = (await me.account.startConnectSession({})).sessionId;
    h.clock.advance(10 * MINUTE - 2000);
    expect((await exchange({ session_id: s })).status).toBe(200);
  });

  it('with no scopes chosen the token gets `*`; the label defaults to connect', async () => {
    const me = await signedIn();
    const r = await exchange({ session_id: (await me.account.startConnectSession({})).sessionId });
    expect(r.body.scopes).toEqual(['*']);
    expect(await sql(`select label from agent_tokens where id = ?`, [r.body.token_id])).toEqual([{ label: 'connect' }]);
  });

  it('scopes wider than the starting token are refused at start', async () => {
    const me = await signedIn(['write:inbox', 'read:inbox']);
    for (const scopes of [[], ['*'], ['read:*'], ['write:tasks']]) {
      const err = await connectErrorOf(me.account.startConnectSession({ scopes }));
      expect(err.code, JSON.stringify(scopes)).toBe(Code.PermissionDenied);
      expect(err.findDetails(ErrorInfoSchema)[0]?.code).toBe('scope_escalation');
    }
    const ok = await me.account.startConnectSession({ scopes: ['read:inbox'] });
    expect((await exchange({ session_id: ok.sessionId })).body.scopes).toEqual(['read:inbox']);
  });

  it('sessions are stored hashed, never as the id', async () => {
    const me = await signedIn();
    const { sessionId } = await me.account.startConnectSession({ label: 'hashed' });
    const rows = await sql(`select session_hash, user_id, scopes, label, used_at, expires_at, created_at from connect_sessions where user_id = ?`, [
      me.user.userId,
    ]);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      session_hash: createHash('sha256').update(sessionId, 'utf8').digest('hex'),
      scopes: ['*'],
      label: 'hashed',
      used_at: null,
    });
    expect(JSON.stringify(rows)).not.toContain(sessionId);
    expect(await sql(`select id from connect_sessions where session_hash = ?`, [sessionId])).toEqual([]);
  });

  it('two concurrent exchanges of one session yield exactly one token', async () => {
    const me = await signedIn();
    const { sessionId } = await me.account.startConnectSession({});
    const results = await Promise.all(Array.from({ length: 5 }, () => exchange({ session_id: sessionId })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 400, 400, 400, 400]);
    expect(await sql(`select id from agent_tokens where user_id = ?`, [me.user.userId])).toHaveLength(2);
  });

  it('a user offboarded after starting the session gets invalid_session', async () => {
    const me = await signedIn();
    const { sessionId } = await me.account.startConnectSession({});
    await sql(`update users set status = 'offboarded' where id = ?`, [me.user.userId]);
    expectInvalidSession(await exchange({ session_id: sessionId }));
  });

  it('malformed bodies are schema errors; a bearer header is ignored', async () => {
    const missing = await exchange({});
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ error: 'schema_invalid', field: 'session_id' });
    expect((await exchange({ session_id: 'x', extra: 1 })).status).toBe(400);
    const me = await signedIn();
    const { sessionId } = await me.account.startConnectSession({});
    expect((await exchange({ session_id: sessionId }, { authorization: 'Bearer nonsense' })).status).toBe(200);
  });

  it('the operator CLI starts a session for a user: `fluxdesk agent-connect --email E --scopes a,b`', async () => {
    const user = await newUser(h);
    expect(parseCommand(['agent-connect', '--email', user.email, '--scopes', 'read:inbox, read:tasks'])).toEqual({
      op: 'agent_connect.start',
      input: { email: user.email, scopes: ['read:inbox', 'read:tasks'] },
    });
    const started = await operator<{ session_id: string; expires_at: string }>(h, 'agent_connect.start', {
      email: user.email,
      scopes: ['read:inbox', 'read:tasks'],
    });
    expect(started.session_id).toMatch(/^cs_/);
    expect(Date.parse(started.expires_at) - h.clock.now().getTime()).toBeGreaterThan(9 * MINUTE);
    const r = await exchange({ session_id: started.session_id });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ scopes: ['read:inbox', 'read:tasks'], user_email: user.email });
    await expect(operator(h, 'agent_connect.start', { email: 'nobody@example.test' })).rejects.toThrow(/user_not_found/);
  });
});

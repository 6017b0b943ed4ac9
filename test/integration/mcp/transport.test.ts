// The agent protocol transport through raw JSON-RPC over HTTP (SPEC C "Transport", "Methods",
// "Batch", "Tool result"; Authentication 2, 5; "Agent token scopes"; Errors "Agent protocol
// errors"; Limits "Agent rate", "Agent batch"; agent protocol 1.22 sections 2-4).
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newPersonalToken, startHarness, type Harness } from '../../helpers/harness.js';
import { call, LIVE_TOOLS, mcp, newAgent, rpc, toolText, type AgentUser, type McpResult } from './rpc.js';

let h: Harness;
let star: AgentUser;
beforeAll(async () => {
  h = await startHarness();
  star = await newAgent(h);
});
afterAll(async () => {
  await h?.close();
});

const sql = (q: string, params: unknown[] = []) => h.svc.deps.orm.em.getConnection().execute(q, params) as Promise<any[]>;
const ALL_TOOLS = [...LIVE_TOOLS];

function expectRpcError(r: McpResult, status: number, code: number, id: unknown = expect.anything()) {
  expect(r.status, r.text).toBe(status);
  expect(r.headers.get('content-type')).toMatch(/^application\/json/);
  expect(r.body).toMatchObject({ jsonrpc: '2.0', id, error: { code, message: expect.any(String) } });
  expect(r.body.result).toBeUndefined();
}

describe('initialize', () => {
  it('echoes a supported protocol version and describes the server', async () => {
    for (const v of ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05']) {
      const r = await mcp(h, rpc('initialize', { protocolVersion: v, capabilities: {}, clientInfo: { name: 't', version: '1' } }, 1), { token: star.token });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({
        jsonrpc: '2.0',
        id: 1,
        result: { protocolVersion: v, capabilities: { tools: { listChanged: false } }, serverInfo: { name: 'fluxdesk', version: '0.25.935' } },
      });
      expect(r.body.result.instructions).toContain('/api/internal-os/agent/protocol');
    }
  });

  it('answers an unknown version with the newest it supports', async () => {
    const r = await mcp(h, rpc('initialize', { protocolVersion: '1999-01-01', capabilities: {} }), { token: star.token });
    expect(r.body.result.protocolVersion).toBe('2026-07-28');
  });

  it('is stateless: no session id is minted, and one sent by the client is ignored', async () => {
    const r = await mcp(h, rpc('initialize', { protocolVersion: '2025-11-25', capabilities: {} }), { token: star.token });
    expect(r.headers.get('mcp-session-id')).toBeNull();
    const r2 = await mcp(h, call('ping'), { token: star.token, headers: { 'mcp-session-id': 'made-up-session' } });
    expect(r2.status).toBe(200);
    expect(r2.body.result.isError).toBe(false);
  });

  it('wrong parameter types are -32602 with data.field', async () => {
    const r = await mcp(h, rpc('initialize', { protocolVersion: 20251125 }, 'i'), { token: star.token });
    expectRpcError(r, 200, -32602, 'i');
    expect(r.body.error.data).toMatchObject({ field: 'protocolVersion' });
  });
});

describe('notifications and ping', () => {
  it('a notification is answered 202 with no body', async () => {
    const r = await mcp(h, { jsonrpc: '2.0', method: 'notifications/initialized' }, { token: star.token });
    expect(r.status).toBe(202);
    expect(r.text).toBe('');
  });

  it('a batch of only notifications is 202 with no body', async () => {
    const r = await mcp(
      h,
      [
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } },
      ],
      { token: star.token },
    );
    expect(r.status).toBe(202);
    expect(r.text).toBe('');
  });

  it('ping answers an empty result', async () => {
    const r = await mcp(h, rpc('ping', undefined, 'p'), { token: star.token });
    expect(r.body).toEqual({ jsonrpc: '2.0', id: 'p', result: {} });
  });
});

describe('tools/list', () => {
  const names = (r: McpResult) => r.body.result.tools.map((t: { name: string }) => t.name).sort();

  it('a `*` token sees every live tool, each with requiredScopes and a JSON Schema inputSchema', async () => {
    const r = await mcp(h, rpc('tools/list'), { token: star.token });
    expect(r.status).toBe(200);
    expect(names(r)).toEqual([...ALL_TOOLS].sort());
    for (const t of r.body.result.tools) {
      expect(Array.isArray(t.requiredScopes)).toBe(true);
      expect(t._meta).toEqual({ 'fluxdesk/requiredScopes': t.requiredScopes });
      expect(t.inputSchema).toMatchObject({ type: 'object' });
      expect(t.outputSchema).toMatchObject({ type: 'object' });
      expect(typeof t.description).toBe('string');
    }
    const byName = Object.fromEntries(r.body.result.tools.map((t: any) => [t.name, t]));
    expect(byName.whoami.requiredScopes).toEqual([]);
    expect(byName.ping.requiredScopes).toEqual([]);
    expect(byName.list_inbox.requiredScopes).toEqual(['read:inbox']);
    expect(byName.get_notification.requiredScopes).toEqual(['read:inbox']);
    expect(byName.mark_notification_read.requiredScopes).toEqual(['write:inbox']);
    expect(byName.mark_all_notifications_read.requiredScopes).toEqual(['write:inbox']);
    expect(byName.list_inbox.inputSchema.properties).toMatchObject({
      unreadOnly: { type: 'boolean' },
      type: { enum: ['task', 'review', 'meeting', 'system'] },
      limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 },
    });
    expect(byName.list_inbox.inputSchema.required ?? []).toEqual([]);
    expect(byName.get_notification.inputSchema.required).toEqual(['notificationId']);
    expect(byName.whoami.outputSchema.required).toEqual(expect.arrayContaining(['userId', 'email', 'name', 'role', 'now', 'scopes']));
  });

  it('shows only the tools the token may call', async () => {
    const reader = await newAgent(h, ['read:inbox']);
    expect(names(await mcp(h, rpc('tools/list'), { token: reader.token }))).toEqual(['get_notification', 'list_inbox', 'ping', 'whoami']);
    const writer = await newAgent(h, ['write:inbox']);
    expect(names(await mcp(h, rpc('tools/list'), { token: writer.token }))).toEqual([
      'issue_personal_inbound_token',
      'mark_all_notifications_read',
      'mark_notification_read',
      'mark_notifications_done',
      'move_notifications_to_inbox',
      'ping',
      'revoke_personal_token',
      'snooze_notification',
      'whoami',
    ]);
    // `read:*` grants every read scope and no write scope.
    const readAll = names(await mcp(h, rpc('tools/list'), { token: (await newAgent(h, ['read:*'])).token }));
    expect(readAll).toEqual(expect.arrayContaining(['get_notification', 'list_inbox', 'list_projects', 'list_tasks', 'get_task', 'ping', 'whoami']));
    expect(readAll.filter((n: string) => /^(mark_|create_|update_|issue_|revoke_|claim_|add_|submit_|publish_)/.test(n))).toEqual([]);
    const other = await newAgent(h, ['read:tasks']);
    expect(names(await mcp(h, rpc('tools/list'), { token: other.token }))).toEqual(['get_owner_intake_templates', 'get_task', 'list_tasks', 'ping', 'whoami']);
  });
});

describe('tools/call', () => {
  it('wraps the output as JSON text in content[0].text and as structuredContent', async () => {
    const a = await newAgent(h, ['read:inbox', 'write:inbox']);
    const r = await mcp(h, call('whoami', {}, 'w'), { token: a.token });
    expect(r.status).toBe(200);
    expect(r.body.id).toBe('w');
    expect(r.body.result.isError).toBe(false);
    expect(r.body.result.content).toHaveLength(1);
    expect(r.body.result.content[0].type).toBe('text');
    const out = toolText(r.body);
    expect(out).toEqual({
      userId: a.userId,
      email: a.email,
      name: 'Agent Owner',
      role: 'member',
      now: expect.any(String),
      scopes: ['read:inbox', 'write:inbox'],
    });
    expect(r.body.result.structuredContent).toEqual(out);
    expect(new Date(out.now).toISOString()).toBe(out.now);
  });

  it('ping the tool answers the identity without scopes', async () => {
    const r = await mcp(h, call('ping'), { token: star.token });
    expect(toolText(r.body)).toEqual({ userId: star.userId, email: star.email, name: 'Agent Owner', role: 'member', now: expect.any(String) });
  });

  it('an unknown tool is -32602 naming the field', async () => {
    const r = await mcp(h, call('no_such_tool', {}, 5), { token: star.token });
    expectRpcError(r, 200, -32602, 5);
    expect(r.body.error.data).toMatchObject({ field: 'name' });
  });

  it('input schema errors are -32602 with data.field (first issue) and data.errors (all)', async () => {
    const r = await mcp(h, call('list_inbox', { limit: 'ten', type: 'nope', extra: 1 }, 6), { token: star.token });
    expectRpcError(r, 200, -32602, 6);
    expect(r.body.error.data.type).toBe('INVALID_INPUT');
    expect(r.body.error.data.errors.map((e: { field: string }) => e.field).sort()).toEqual(['extra', 'limit', 'type']);
    expect(['extra', 'limit', 'type']).toContain(r.body.error.data.field);

    const r2 = await mcp(h, call('get_notification', { notificationId: 'not-a-uuid' }), { token: star.token });
    expect(r2.body.error).toMatchObject({ code: -32602, data: { field: 'notificationId' } });
    const r3 = await mcp(h, call('get_notification', {}), { token: star.token });
    expect(r3.body.error).toMatchObject({ code: -32602, data: { field: 'notificationId', errors: [{ code: 'required' }] } });
  });

  it('wrong envelope parameter types are -32602 with data.field', async () => {
    const r = await mcp(h, rpc('tools/call', { name: 5 }, 7), { token: star.token });
    expectRpcError(r, 200, -32602, 7);
    expect(r.body.error.data.field).toBe('name');
    const r2 = await mcp(h, rpc('tools/call', { name: 'whoami', arguments: [1] }, 8), { token: star.token });
    expect(r2.body.error).toMatchObject({ code: -32602, data: { field: 'arguments' } });
    const r3 = await mcp(h, { jsonrpc: '2.0', id: 9, method: 'tools/list', params: [1] }, { token: star.token });
    expectRpcError(r3, 200, -32602, 9);
    expect(r3.body.error.data.field).toBe('params');
  });
});

describe('malformed JSON-RPC: the right error, never a 5xx', () => {
  it('malformed JSON is -32700', async () => {
    for (const raw of ['{"jsonrpc": "2.0", "id": 1, "method": ', 'not json', '']) {
      const r = await mcp(h, undefined, { token: star.token, raw });
      expectRpcError(r, 400, -32700, null);
    }
  });

  it('a body that is not an object or an array is -32600', async () => {
    for (const raw of ['42', '"tools/list"', 'null', 'true']) {
      const r = await mcp(h, undefined, { token: star.token, raw });
      expectRpcError(r, 400, -32600, null);
    }
  });

  it('missing or wrong jsonrpc is -32600 (keeping the id)', async () => {
    expectRpcError(await mcp(h, { id: 3, method: 'ping' }, { token: star.token }), 400, -32600, 3);
    expectRpcError(await mcp(h, { jsonrpc: '1.0', id: 4, method: 'ping' }, { token: star.token }), 400, -32600, 4);
    expectRpcError(await mcp(h, { jsonrpc: '2.0', id: 4 }, { token: star.token }), 400, -32600, 4);
    expectRpcError(await mcp(h, { jsonrpc: '2.0', id: null, method: 'ping' }, { token: star.token }), 400, -32600, null);
  });

  it('an unknown method is -32601', async () => {
    const r = await mcp(h, rpc('resources/list', undefined, 'u'), { token: star.token });
    expectRpcError(r, 200, -32601, 'u');
  });

  it('a body over 256 KB is refused with a JSON-RPC error', async () => {
    const raw = JSON.stringify(call('whoami', { pad: 'x'.repeat(300 * 1024) }));
    const r = await mcp(h, undefined, { token: star.token, raw });
    expectRpcError(r, 413, -32600, null);
  });

  it('a body that is not JSON by Content-Type is 415', async () => {
    const r = await mcp(h, undefined, { token: star.token, raw: JSON.stringify(rpc('ping')), headers: { 'content-type': 'text/plain' } });
    expectRpcError(r, 415, -32600, null);
  });

  it('a token in the query string is refused before anything else', async () => {
    const res = await fetch(`${h.baseUrl}/mcp?token=${star.token}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${star.token}` },
      body: JSON.stringify(rpc('ping')),
    });
    expect(res.status).toBe(400);
    expect((await res.json()).error.code).toBe(-32600);
  });
});

describe('batches', () => {
  it('an array in, an array out matched by id; a failing member fails alone', async () => {
    const r = await mcp(
      h,
      [
        rpc('initialize', { protocolVersion: '2025-03-26', capabilities: {} }, 'init'),
        rpc('tools/list', undefined, 2),
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        call('get_notification', { notificationId: 'bad' }, 3),
        call('whoami', {}, 'who'),
        rpc('nope/nope', undefined, 4),
        { jsonrpc: '2.0', id: 5 },
      ],
      { token: star.token },
    );
    expect(r.status).toBe(200);
    expect(Array.isArray(r.body)).toBe(true);
    expect(r.body).toHaveLength(6); // the notification gets no member
    const byId = new Map(r.body.map((m: any) => [m.id, m]));
    expect((byId.get('init') as any).result.protocolVersion).toBe('2025-03-26');
    expect((byId.get(2) as any).result.tools).toHaveLength(ALL_TOOLS.length);
    expect((byId.get(3) as any).error).toMatchObject({ code: -32602, data: { field: 'notificationId' } });
    expect(toolText(byId.get('who'))).toMatchObject({ userId: star.userId });
    expect((byId.get(4) as any).error.code).toBe(-32601);
    expect((byId.get(5) as any).error.code).toBe(-32600);
  });

  it('a second initialize in a batch is -32600 for that member only', async () => {
    const r = await mcp(
      h,
      [rpc('initialize', { protocolVersion: '2025-11-25' }, 1), rpc('initialize', { protocolVersion: '2025-11-25' }, 2), rpc('ping', undefined, 3)],
      { token: star.token },
    );
    expect(r.status).toBe(200);
    expect(r.body[0].result.protocolVersion).toBe('2025-11-25');
    expect(r.body[1]).toMatchObject({ id: 2, error: { code: -32600 } });
    expect(r.body[2]).toEqual({ jsonrpc: '2.0', id: 3, result: {} });
  });

  it('non-object members are -32600 with a null id', async () => {
    const r = await mcp(h, [1, rpc('ping', undefined, 'ok')], { token: star.token });
    expect(r.body).toEqual([
      { jsonrpc: '2.0', id: null, error: expect.objectContaining({ code: -32600 }) },
      { jsonrpc: '2.0', id: 'ok', result: {} },
    ]);
  });

  it('an empty batch is -32600', async () => {
    expectRpcError(await mcp(h, [], { token: star.token }), 400, -32600, null);
  });

  it('20 members are served; 21 are refused whole: "batch too large (max 20)"', async () => {
    const a = await newAgent(h);
    const twenty = Array.from({ length: 20 }, (_, i) => rpc('ping', undefined, i));
    const ok = await mcp(h, twenty, { token: a.token });
    expect(ok.status).toBe(200);
    expect(ok.body).toHaveLength(20);
    const big = await mcp(h, [...twenty, rpc('ping', undefined, 20)], { token: a.token });
    expectRpcError(big, 400, -32600, null);
    expect(big.body.error.message).toBe('batch too large (max 20)');
    expect(big.body.error.data).toMatchObject({ max: 20, received: 21 });
    const huge = await mcp(
      h,
      Array.from({ length: 1000 }, (_, i) => rpc('ping', undefined, i)),
      { token: a.token },
    );
    expectRpcError(huge, 400, -32600, null);
    expect(huge.body.error.data.received).toBe(1000);
  });
});

describe('content negotiation and methods', () => {
  it('answers as an event stream when the client accepts only text/event-stream', async () => {
    const r = await mcp(h, call('whoami', {}, 'sse'), { token: star.token, headers: { accept: 'text/event-stream' } });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const m = /^event: message\ndata: (.*)\n\n$/.exec(r.text);
    expect(m).not.toBeNull();
    const msg = JSON.parse(m![1]!);
    expect(msg.id).toBe('sse');
    expect(JSON.parse(msg.result.content[0].text).userId).toBe(star.userId);
  });

  it('a batch over an event stream is one message event per response, in order', async () => {
    const r = await mcp(h, [rpc('ping', undefined, 1), rpc('ping', undefined, 2)], { token: star.token, headers: { accept: 'text/event-stream' } });
    const events = r.text.split('\n\n').filter(Boolean);
    expect(events.map((e) => JSON.parse(e.replace(/^event: message\ndata: /, '')).id)).toEqual([1, 2]);
  });

  it('answers JSON when the client accepts both, or JSON only', async () => {
    for (const accept of ['application/json, text/event-stream', 'application/json', '*/*']) {
      const r = await mcp(h, rpc('ping'), { token: star.token, headers: { accept } });
      expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    }
  });

  it('GET and DELETE are 405 with Allow: POST (no server-initiated stream, no sessions)', async () => {
    for (const method of ['GET', 'DELETE']) {
      const r = await mcp(h, undefined, { token: star.token, method, headers: { accept: 'text/event-stream' } });
      expect(r.status).toBe(405);
      expect(r.headers.get('allow')).toBe('POST');
      expect(r.body.error.code).toBe(-32600);
    }
  });
});

describe('authentication: 401 for every bad token kind', () => {
  async function expect401(r: McpResult, code: string) {
    expectRpcError(r, 401, -32001, null);
    expect(r.body.error.data).toMatchObject({ type: 'UNAUTHORIZED', code });
    expect(r.headers.get('www-authenticate')).toMatch(/^Bearer /);
  }

  it('missing header', async () => {
    await expect401(await mcp(h, rpc('tools/list')), 'missing_or_invalid_authorization');
  });

  it('malformed header (another scheme, two spaces)', async () => {
    await expect401(await mcp(h, rpc('tools/list'), { headers: { authorization: `Basic ${star.token}` } }), 'missing_or_invalid_authorization');
    await expect401(await mcp(h, rpc('tools/list'), { headers: { authorization: `Bearer  ${star.token}` } }), 'missing_or_invalid_authorization');
  });

  it('not a fluxdesk token, and an unknown agent token', async () => {
    await expect401(await mcp(h, rpc('tools/list'), { token: 'sk-svc-short' }), 'invalid_token_format');
    await expect401(await mcp(h, rpc('tools/list'), { token: `sk-svc-${randomBytes(24).toString('base64url')}` }), 'token_not_found');
  });

  it('a personal (inbound) token is token_mismatch', async () => {
    const p = await newPersonalToken(h);
    const r = await mcp(h, call('whoami'), { token: p.token });
    await expect401(r, 'token_mismatch');
    expect(r.text).not.toContain(p.token);
  });

  it('a revoked agent token is 401 immediately, with no grace window', async () => {
    const a = await newAgent(h);
    expect((await mcp(h, call('whoami'), { token: a.token })).status).toBe(200);
    await sql('update agent_tokens set revoked_at = now() where id = ?', [a.tokenId]);
    await expect401(await mcp(h, call('whoami'), { token: a.token }), 'token_revoked');
    await expect401(await mcp(h, { jsonrpc: '2.0', method: 'notifications/initialized' }, { token: a.token }), 'token_revoked');
  });

  it('malformed bodies are not looked at before authentication', async () => {
    await expect401(await mcp(h, undefined, { raw: 'garbage' }), 'missing_or_invalid_authorization');
  });
});

describe('scopes: 403 naming the missing scope', () => {
  it('a lone tools/call without the scope is HTTP 403 with a JSON-RPC error', async () => {
    const reader = await newAgent(h, ['read:inbox']);
    const r = await mcp(h, call('mark_all_notifications_read', {}, 'm'), { token: reader.token });
    expectRpcError(r, 403, -32003, 'm');
    expect(r.body.error.data).toMatchObject({ type: 'FORBIDDEN', code: 'missing_scope', missing_scope: 'write:inbox' });
    expect(r.body.error.message).toContain('write:inbox');
    // The MCP authorization scope challenge names the scope to ask for.
    expect(r.headers.get('www-authenticate')).toBe('Bearer realm="fluxdesk", error="insufficient_scope", scope="write:inbox"');
  });

  it('inside a batch only that member fails and the HTTP status stays 200', async () => {
    const reader = await newAgent(h, ['read:inbox']);
    const r = await mcp(h, [call('mark_notification_read', { notificationId: '00000000-0000-4000-8000-000000000000' }, 1), call('list_inbox', {}, 2)], {
      token: reader.token,
    });
    expect(r.status).toBe(200);
    expect(r.body[0].error).toMatchObject({ code: -32003, data: { missing_scope: 'write:inbox' } });
    expect(r.headers.get('www-authenticate')).toBeNull();
    expect(toolText(r.body[1])).toMatchObject({ totalCount: 0, unreadCount: 0, items: [] });
  });

  it('whoami and ping work with any scope set', async () => {
    const odd = await newAgent(h, ['admin:broadcast']);
    for (const tool of ['whoami', 'ping']) expect((await mcp(h, call(tool), { token: odd.token })).body.result.isError).toBe(false);
  });
});

describe('stateless clients (MCP 2026-07-28): no initialize, version in _meta, mirrored headers', () => {
  const META = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'stateless', version: '1' },
  };
  const post = (token: string, method: string, params: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
    mcp(h, rpc(method, { ...params, _meta: META }, 'x'), {
      token,
      headers: {
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': method,
        ...(typeof params.name === 'string' ? { 'mcp-name': params.name } : {}),
        ...headers,
      },
    });

  it('server/discover lists versions, capabilities and server info', async () => {
    const r = await post(star.token, 'server/discover');
    expect(r.status).toBe(200);
    expect(r.body.result).toMatchObject({
      resultType: 'complete',
      supportedVersions: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'],
      capabilities: { tools: { listChanged: false } },
      serverInfo: { name: 'fluxdesk', version: '0.25.935' },
    });
  });

  it('tools/list and tools/call work without a handshake and say resultType complete', async () => {
    const list = await post(star.token, 'tools/list');
    expect(list.body.result).toMatchObject({ resultType: 'complete', cacheScope: 'private', ttlMs: expect.any(Number) });
    expect(list.body.result.tools).toHaveLength(ALL_TOOLS.length);
    const r = await post(star.token, 'tools/call', { name: 'whoami', arguments: {} });
    expect(r.body.result).toMatchObject({ resultType: 'complete', isError: false, structuredContent: { userId: star.userId } });
  });

  it('Mcp-Name may be base64-encoded with the sentinel', async () => {
    const r = await post(star.token, 'tools/call', { name: 'whoami' }, { 'mcp-name': `=?base64?${Buffer.from('whoami').toString('base64')}?=` });
    expect(r.status).toBe(200);
  });

  it('headers that disagree with the body, or are missing, are -32020 with HTTP 400', async () => {
    expectRpcError(await post(star.token, 'tools/list', {}, { 'mcp-method': 'tools/call' }), 400, -32020);
    expectRpcError(await post(star.token, 'tools/call', { name: 'whoami' }, { 'mcp-name': 'ping' }), 400, -32020);
    expectRpcError(await post(star.token, 'tools/list', {}, { 'mcp-protocol-version': '2025-11-25' }), 400, -32020);
    const noHeaders = await mcp(h, rpc('tools/list', { _meta: META }), { token: star.token });
    expectRpcError(noHeaders, 400, -32020);
  });

  it('an unsupported version is -32022 with the supported list, HTTP 400', async () => {
    const r = await mcp(h, rpc('tools/list', { _meta: { ...META, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } }), {
      token: star.token,
      headers: { 'mcp-protocol-version': '2099-01-01', 'mcp-method': 'tools/list' },
    });
    expectRpcError(r, 400, -32022);
    expect(r.body.error.data).toEqual({ supported: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'], requested: '2099-01-01' });
  });

  it('an unknown method is -32601 with HTTP 404', async () => {
    expectRpcError(await post(star.token, 'prompts/list'), 404, -32601);
  });

  it('an earlier client sending an unsupported MCP-Protocol-Version header gets -32022', async () => {
    expectRpcError(await mcp(h, rpc('tools/list'), { token: star.token, headers: { 'mcp-protocol-version': '2023-01-01' } }), 400, -32022);
  });
});

describe('the protocol text documents this behaviour', () => {
  it('names the batch limit and the JSON-RPC codes chosen here', async () => {
    const res = await fetch(`${h.baseUrl}/api/internal-os/agent/protocol`);
    const text = await res.text();
    expect(text).toContain('version 1.22');
    for (const s of [
      'batch too large (max 20)',
      'gateway budget exceeded',
      '`-32001`',
      '`-32003`',
      '`-32005`',
      '`-32020`',
      '`-32022`',
      'text/event-stream',
      '405',
    ])
      expect(text).toContain(s);
  });
});

describe('rate limit: 60 requests per minute per token', () => {
  it('the 61st request is 429 with Retry-After; the window frees after a minute', async () => {
    const a = await newAgent(h);
    // Protocol methods count like tool calls (5 here); batch members count one each (55).
    for (let i = 0; i < 5; i++) expect((await mcp(h, rpc('tools/list'), { token: a.token })).status).toBe(200);
    for (const n of [20, 20, 15]) {
      const r = await mcp(
        h,
        Array.from({ length: n }, (_, i) => call('ping', {}, i)),
        { token: a.token },
      );
      expect(
        r.body.every((m: any) => m.result?.isError === false),
        JSON.stringify(r.body.find((m: any) => m.error)),
      ).toBe(true);
    }
    const limited = await mcp(h, call('whoami', {}, 'x'), { token: a.token });
    expectRpcError(limited, 429, -32005, 'x');
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limited.headers.get('x-ratelimit-limit')).toBe('60');
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(limited.body.error.data).toMatchObject({ type: 'TOO_MANY_REQUESTS', retryAfterSeconds: retryAfter });

    // In a batch, each limited member fails for itself; the HTTP status stays 200 and carries Retry-After.
    const batch = await mcp(h, [rpc('ping', undefined, 'p'), call('whoami', {}, 'w')], { token: a.token });
    expect(batch.status).toBe(200);
    expect(batch.body.map((m: any) => [m.id, m.error?.code])).toEqual([
      ['p', -32005],
      ['w', -32005],
    ]);
    expect(batch.headers.get('retry-after')).not.toBeNull();

    h.clock.advance(61_000);
    const again = await mcp(h, call('whoami'), { token: a.token });
    expect(again.status).toBe(200);
    expect(again.body.result.isError).toBe(false);
  });
});

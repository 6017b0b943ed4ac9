// A current MCP client, unchanged: the official SDK of the 2.x line (@modelcontextprotocol/client,
// the stateless 2026-07-28 revision) over its streamable HTTP transport against POST /mcp (SPEC C
// "Transport"; issue: "current clients must also work unchanged ... test with both SDK clients").
// The 2.x client connects the 2025 way (initialize) by default and the 2026-07-28 way (server/discover,
// then no handshake: version in every request's _meta and mirrored headers) when asked to negotiate.
import {
  Client,
  InsufficientScopeError,
  LATEST_PROTOCOL_VERSION,
  ProtocolError,
  SdkHttpError,
  StreamableHTTPClientTransport,
  type VersionNegotiationMode,
} from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { event, newPersonalToken, publish, startHarness, type Harness } from '../../helpers/harness.js';
import { LIVE_TOOLS, newAgent } from './rpc.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

/** One HTTP exchange the client made, as the server saw it. */
interface Sent {
  method: string;
  headers: Record<string, string>;
  body: any;
  status: number;
}

async function connect(token: string, mode: VersionNegotiationMode) {
  const sent: Sent[] = [];
  const transport = new StreamableHTTPClientTransport(new URL(`${h.baseUrl}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
    // Records what the client sends; the request itself goes out unchanged.
    fetch: async (url, init) => {
      const res = await fetch(url, init);
      const headers = Object.fromEntries(new Headers(init?.headers).entries());
      sent.push({ method: init?.method ?? 'GET', headers, body: typeof init?.body === 'string' ? JSON.parse(init.body) : undefined, status: res.status });
      return res;
    },
  });
  const client = new Client({ name: 'fluxdesk-sdk2-test', version: '2.0.0' }, { versionNegotiation: { mode } });
  const errors: Error[] = [];
  client.onerror = (e) => errors.push(e);
  await client.connect(transport);
  return { client, transport, errors, sent };
}

type CallResult = Awaited<ReturnType<Client['callTool']>>;
const text = (r: CallResult) => JSON.parse((r.content as Array<{ type: string; text: string }>)[0]!.text);

describe('@modelcontextprotocol/client 2.x, stateless (versionNegotiation auto: MCP 2026-07-28)', () => {
  it('discovers, negotiates 2026-07-28, sends no initialize, lists tools and calls whoami', async () => {
    const a = await newAgent(h);
    const { client, errors, sent } = await connect(a.token, 'auto');
    try {
      expect(client.getProtocolEra()).toBe('modern');
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      expect(client.getServerVersion()).toMatchObject({ name: 'fluxdesk', version: '0.25.935' });
      expect(client.getServerCapabilities()).toMatchObject({ tools: { listChanged: false } });
      expect(client.getInstructions()).toContain('/api/internal-os/agent/protocol');
      expect(client.getDiscoverResult()?.supportedVersions).toContain('2026-07-28');

      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual([...LIVE_TOOLS].sort());
      const listInbox = tools.find((t) => t.name === 'list_inbox')!;
      expect(listInbox.inputSchema.type).toBe('object');
      expect(listInbox._meta).toEqual({ 'fluxdesk/requiredScopes': ['read:inbox'] });
      // The server says the listing is cacheable per authorization (ttlMs, cacheScope private): a
      // second listTools is served from the client's cache without a round trip.
      await client.listTools();
      expect(sent.filter((s) => s.body?.method === 'tools/list')).toHaveLength(1);

      const who = await client.callTool({ name: 'whoami', arguments: {} });
      expect(who.isError).toBe(false);
      expect(who.structuredContent).toMatchObject({ userId: a.userId, email: a.email, scopes: ['*'] });
      expect(text(who)).toEqual(who.structuredContent);
      expect(who._meta).toEqual({ 'io.modelcontextprotocol/serverInfo': { name: 'fluxdesk', title: 'fluxdesk', version: '0.25.935' } });

      // On the wire: server/discover first, never initialize nor a GET stream; every POST declares
      // 2026-07-28 in the header and in _meta, and mirrors the method (and tool name) in headers.
      expect(sent.map((s) => s.body?.method)).toEqual(['server/discover', 'tools/list', 'tools/call']);
      for (const s of sent) {
        expect(s.method).toBe('POST');
        expect(s.status).toBe(200);
        expect(s.headers['mcp-protocol-version']).toBe('2026-07-28');
        expect(s.headers['mcp-method']).toBe(s.body.method);
        expect(s.body.params._meta['io.modelcontextprotocol/protocolVersion']).toBe('2026-07-28');
      }
      expect(sent[2]!.headers['mcp-name']).toBe('whoami');
      expect(errors).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it('pinning 2026-07-28 works too', async () => {
    const a = await newAgent(h, ['read:inbox']);
    const { client } = await connect(a.token, { pin: '2026-07-28' });
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      expect((await client.callTool({ name: 'list_inbox', arguments: {} })).structuredContent).toMatchObject({ totalCount: 0, items: [] });
    } finally {
      await client.close();
    }
  });

  it('reads and writes the inbox with output validated by the client; tool failures are results, input errors are -32602', async () => {
    const p = await newPersonalToken(h);
    expect((await publish(h, p.token, event(h, { title: 'From CI' }))).status).toBe(202);
    const a = await newAgent(h, ['read:inbox', 'write:inbox'], p.user);
    const { client } = await connect(a.token, 'auto');
    try {
      const inbox = await client.callTool({ name: 'list_inbox', arguments: { unreadOnly: true } });
      expect(inbox.structuredContent).toMatchObject({ totalCount: 1, unreadCount: 1, items: [{ title: 'From CI', read: false }] });
      const id = (inbox.structuredContent as { items: Array<{ id: string }> }).items[0]!.id;
      expect((await client.callTool({ name: 'mark_notification_read', arguments: { notificationId: id } })).structuredContent).toEqual({ updated: true });
      expect((await client.callTool({ name: 'list_inbox', arguments: { unreadOnly: true } })).structuredContent).toMatchObject({
        totalCount: 0,
        unreadCount: 0,
      });

      const missing = await client.callTool({ name: 'get_notification', arguments: { notificationId: '00000000-0000-4000-8000-000000000000' } });
      expect(missing.isError).toBe(true);
      expect(text(missing)).toEqual({ error: 'NOT_FOUND: notification not found' });

      const bad = await client.callTool({ name: 'list_inbox', arguments: { limit: 0 } }).catch((e: unknown) => e);
      expect(bad).toBeInstanceOf(ProtocolError);
      expect(bad).toMatchObject({ code: -32602, data: { type: 'INVALID_INPUT', field: 'limit' } });
    } finally {
      await client.close();
    }
  });

  it('a token without the scope sees only its tools, and a refused call rejects', async () => {
    const a = await newAgent(h, ['read:inbox']);
    const { client } = await connect(a.token, 'auto');
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(['get_notification', 'list_inbox', 'ping', 'wait_for_inbox', 'whoami']);
      // The refusal is HTTP 403 with the scope challenge `WWW-Authenticate: Bearer error="insufficient_scope",
      // scope="write:inbox"`: the client raises its InsufficientScopeError naming the scope to ask for.
      const refused = await client.callTool({ name: 'mark_all_notifications_read', arguments: {} }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(InsufficientScopeError);
      expect((refused as InsufficientScopeError).requiredScope).toBe('write:inbox');
    } finally {
      await client.close();
    }
  });

  it('a bad token fails to connect (the discover probe gets 401)', async () => {
    const transport = new StreamableHTTPClientTransport(new URL(`${h.baseUrl}/mcp`), { requestInit: { headers: { Authorization: 'Bearer sk-svc-nope' } } });
    const client = new Client({ name: 'fluxdesk-sdk2-test', version: '2.0.0' }, { versionNegotiation: { mode: 'auto' } });
    const err = await client.connect(transport).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SdkHttpError);
    expect((err as SdkHttpError).message).toMatch(/requires authorization \(HTTP 401\)/);
    expect((err as SdkHttpError).status).toBe(401);
    expect(JSON.parse(String((err as SdkHttpError).data.text)).error).toMatchObject({ code: -32001, data: { type: 'UNAUTHORIZED' } });
    await client.close();
  });
});

describe('@modelcontextprotocol/client 2.x, default (legacy initialize handshake)', () => {
  it("initializes at the SDK's latest 2025 revision and works unchanged", async () => {
    const a = await newAgent(h);
    const { client, errors, sent } = await connect(a.token, 'legacy');
    try {
      expect(LATEST_PROTOCOL_VERSION).toBe('2025-11-25');
      expect(client.getProtocolEra()).toBe('legacy');
      expect(client.getNegotiatedProtocolVersion()).toBe('2025-11-25');
      expect(sent[0]!.body).toMatchObject({ method: 'initialize', params: { protocolVersion: '2025-11-25' } });

      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual([...LIVE_TOOLS].sort());
      const who = await client.callTool({ name: 'whoami', arguments: {} });
      expect(who.structuredContent).toMatchObject({ userId: a.userId, scopes: ['*'] });
      await expect(client.callTool({ name: 'list_inbox', arguments: { limit: 0 } })).rejects.toMatchObject({ code: -32602 });
      // The client's optional GET for a server-initiated stream gets 405, which it accepts silently.
      expect(sent.find((s) => s.method === 'GET')?.status).toBe(405);
      expect(errors).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it('a bad token fails to connect', async () => {
    const transport = new StreamableHTTPClientTransport(new URL(`${h.baseUrl}/mcp`), { requestInit: { headers: { Authorization: 'Bearer sk-svc-nope' } } });
    const client = new Client({ name: 'fluxdesk-sdk2-test', version: '2.0.0' });
    const err = await client.connect(transport).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SdkHttpError);
    expect((err as SdkHttpError).status).toBe(401);
    await client.close();
  });
});

// A current MCP client, unchanged: the official SDK of the 1.x line (@modelcontextprotocol/sdk,
// protocol 2025-11-25) over streamable HTTP against POST /mcp (SPEC C "Transport"; issue: "current
// clients must also work unchanged").
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
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

async function connect(token: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport; errors: Error[] }> {
  const transport = new StreamableHTTPClientTransport(new URL(`${h.baseUrl}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
  const client = new Client({ name: 'fluxdesk-sdk-test', version: '1.0.0' });
  const errors: Error[] = [];
  client.onerror = (e) => errors.push(e);
  await client.connect(transport);
  return { client, transport, errors };
}

const text = (r: Awaited<ReturnType<Client['callTool']>>) => JSON.parse((r.content as Array<{ type: string; text: string }>)[0]!.text);

describe('@modelcontextprotocol/sdk 1.x Client + StreamableHTTPClientTransport', () => {
  it("connects (initialize at the SDK's latest version), lists tools and calls whoami", async () => {
    const a = await newAgent(h);
    const { client, transport, errors } = await connect(a.token);
    try {
      expect(LATEST_PROTOCOL_VERSION).toBe('2025-11-25');
      expect(client.getServerVersion()).toMatchObject({ name: 'fluxdesk', version: '0.25.935' });
      expect(client.getServerCapabilities()).toMatchObject({ tools: { listChanged: false } });
      expect(client.getInstructions()).toContain('/api/internal-os/agent/protocol');
      expect(transport.sessionId).toBeUndefined(); // stateless

      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual([...LIVE_TOOLS].sort());
      const listInbox = tools.find((t) => t.name === 'list_inbox')!;
      expect(listInbox.inputSchema.type).toBe('object');
      // The SDK keeps only known Tool keys: requiredScopes reaches it through _meta.
      expect(listInbox._meta).toEqual({ 'fluxdesk/requiredScopes': ['read:inbox'] });

      // The SDK validates structuredContent against the advertised outputSchema.
      const who = await client.callTool({ name: 'whoami', arguments: {} });
      expect(who.isError).toBe(false);
      expect(who.structuredContent).toMatchObject({ userId: a.userId, email: a.email, scopes: ['*'] });
      expect(text(who)).toEqual(who.structuredContent);

      await client.ping();
      // The SDK's GET for a server-initiated stream got 405, which it accepts silently.
      expect(errors).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it('reads and writes the inbox, with output validated by the SDK', async () => {
    const p = await newPersonalToken(h);
    const r = await publish(h, p.token, event(h, { title: 'From CI' }));
    expect(r.status).toBe(202);
    const a = await newAgent(h, ['read:inbox', 'write:inbox'], p.user);
    const { client } = await connect(a.token);
    try {
      const inbox = await client.callTool({ name: 'list_inbox', arguments: { unreadOnly: true } });
      expect(inbox.structuredContent).toMatchObject({ totalCount: 1, unreadCount: 1, items: [{ title: 'From CI', read: false }] });
      const id = (inbox.structuredContent as { items: Array<{ id: string }> }).items[0]!.id;
      const detail = await client.callTool({ name: 'get_notification', arguments: { notificationId: id } });
      expect(detail.structuredContent).toMatchObject({ id, title: 'From CI', actor: null });
      expect((await client.callTool({ name: 'mark_notification_read', arguments: { notificationId: id } })).structuredContent).toEqual({ updated: true });
      expect((await client.callTool({ name: 'mark_all_notifications_read', arguments: {} })).structuredContent).toEqual({ updatedCount: 0 });

      // A tool failure is a result with isError, not an exception.
      const missing = await client.callTool({ name: 'get_notification', arguments: { notificationId: '00000000-0000-4000-8000-000000000000' } });
      expect(missing.isError).toBe(true);
      expect(text(missing)).toEqual({ error: 'NOT_FOUND: notification not found' });

      // An input schema error surfaces as the JSON-RPC -32602 error.
      await expect(client.callTool({ name: 'list_inbox', arguments: { limit: 0 } })).rejects.toMatchObject({ code: -32602 });
    } finally {
      await client.close();
    }
  });

  it('a token without the scope gets no tool listing for it, and a refused call rejects', async () => {
    const a = await newAgent(h, ['read:inbox']);
    const { client } = await connect(a.token);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(['get_notification', 'list_inbox', 'ping', 'wait_for_inbox', 'whoami']);
      await expect(client.callTool({ name: 'mark_all_notifications_read', arguments: {} })).rejects.toThrow(/403|write:inbox/);
    } finally {
      await client.close();
    }
  });

  it('a bad token fails to connect', async () => {
    const transport = new StreamableHTTPClientTransport(new URL(`${h.baseUrl}/mcp`), { requestInit: { headers: { Authorization: 'Bearer sk-svc-nope' } } });
    const client = new Client({ name: 'fluxdesk-sdk-test', version: '1.0.0' });
    await expect(client.connect(transport)).rejects.toThrow(/401|Unauthorized/i);
    await client.close();
  });
});

// Raw JSON-RPC over fetch against POST /mcp (no SDK): what a hand-written or 2026-07-28 client sends.
import { operator, uniqueEmail, type Harness } from '../../helpers/harness.js';

export interface McpResult {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export const ACCEPT_BOTH = 'application/json, text/event-stream';

export async function mcp(
  h: Harness,
  payload: unknown,
  opts: { token?: string; headers?: Record<string, string>; raw?: string | Uint8Array; method?: string } = {},
): Promise<McpResult> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: ACCEPT_BOTH, ...opts.headers };
  if (opts.token !== undefined) headers.authorization = `Bearer ${opts.token}`;
  const method = opts.method ?? 'POST';
  const body = method === 'POST' ? (opts.raw ?? JSON.stringify(payload)) : undefined;
  const res = await fetch(`${h.baseUrl}/mcp`, { method, headers, body: body as BodyInit | undefined });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}

let seq = 0;
export const rpc = (method: string, params?: Record<string, unknown>, id: string | number = ++seq) => ({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
export const call = (name: string, args?: Record<string, unknown>, id?: string | number) => rpc('tools/call', { name, ...(args ? { arguments: args } : {}) }, id);

/** The JSON inside result.content[0].text. */
export const toolText = (response: any) => JSON.parse(response.result.content[0].text);

export interface AgentUser {
  userId: string;
  email: string;
  token: string;
  tokenId: string;
}

/** A fresh user with an agent token holding `scopes` (omitted: `*`). */
export async function newAgent(h: Harness, scopes?: string[], user?: { userId: string; email: string }): Promise<AgentUser> {
  const u = user ?? (await operator<{ userId: string; email: string }>(h, 'users.create', { email: uniqueEmail('agent'), name: 'Agent Owner', role: 'member' }));
  const t = await operator<{ tokenId: string; token: string }>(h, 'agent_tokens.create', { email: u.email, ...(scopes ? { scopes } : {}) });
  return { userId: u.userId, email: u.email, token: t.token, tokenId: t.tokenId };
}

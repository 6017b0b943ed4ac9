// Raw JSON-RPC over fetch against POST /mcp (no SDK): what a hand-written or 2026-07-28 client sends;
// plus the asserting tool-call helpers (toolCalls) the MCP tool tests share.
import { expect } from 'vitest';
import { agents, withToken, type AgentUser } from '../../helpers/agents.js';
import { operator, uniqueEmail, type Harness } from '../../helpers/harness.js';

export type { AgentUser };

export interface McpResult {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export const ACCEPT_BOTH = 'application/json, text/event-stream';

/** Every live tool (agent protocol "Live now"): what a `*` token sees in tools/list. */
export const LIVE_TOOLS = [
  'whoami',
  'ping',
  'list_inbox',
  'get_notification',
  'mark_notification_read',
  'mark_notifications_done',
  'move_notifications_to_inbox',
  'snooze_notification',
  'mark_all_notifications_read',
  'issue_personal_inbound_token',
  'revoke_personal_token',
  'revoke_admin_token',
  'issue_admin_tools_claim_token',
  'list_inbound_tokens',
  'resolve_inbound_event',
  'supplement_inbound_event',
  'broadcast_event',
  'assign_catalog_to_employee',
  'revoke_catalog_approval',
  'approve_team_support_request',
  'create_team_support_request_on_behalf',
  'list_pending_team_support_requests',
  'list_approvals_for_user',
  'catalog_item_create',
  'catalog_item_list',
  'catalog_item_update',
  'catalog_item_delete',
  'invite_user',
  'search_user_by_username',
  'list_projects',
  'list_tasks',
  'get_task',
  'get_owner_intake_templates',
  'create_task',
  'publish_task_draft',
  'claim_task',
  'update_task_status',
  'add_task_comment',
  'submit_daily_update',
  'list_docs',
  'get_doc',
  'search_docs',
  'list_doc_drafts',
  'list_tags',
  'search_by_tags',
  'create_doc_draft',
  'update_doc_draft',
  'publish_doc_draft',
  'archive_doc',
  'restore_doc',
  'update_doc',
  'tag_doc',
  'untag_doc',
  // feedback tools
  'list_feedback',
  'get_feedback',
  'create_feedback',
  'add_feedback_comment',
  // repository tools
  'list_project_repositories',
  'list_project_repository_commits',
  'bind_project_repository',
  'unbind_project_repository',
  // search tools
  'search',
  // moderation tools
  'issue_admin_moderation_token',
] as const;

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
export const rpc = (method: string, params?: Record<string, unknown>, id: string | number = ++seq) => ({
  jsonrpc: '2.0',
  id,
  method,
  ...(params ? { params } : {}),
});
export const call = (name: string, args?: Record<string, unknown>, id?: string | number) =>
  rpc('tools/call', { name, ...(args ? { arguments: args } : {}) }, id);

/** The JSON inside result.content[0].text. */
export const toolText = (response: any) => JSON.parse(response.result.content[0].text);

/** A fresh user with an agent token holding `scopes` (omitted: `*`). */
export async function newAgent(h: Harness, scopes?: string[], user?: { userId: string; email: string }): Promise<AgentUser> {
  const u =
    user ?? (await operator<{ userId: string; email: string }>(h, 'users.create', { email: uniqueEmail('agent'), name: 'Agent Owner', role: 'member' }));
  return withToken(h, u, scopes);
}

type Args = Record<string, unknown>;

/**
 * A successful tool result (HTTP 200, isError false, structuredContent equal to the text: every live
 * tool declares an output, so it is always there); returns its JSON.
 */
export async function toolOk(h: Harness, token: string, name: string, args: Args = {}): Promise<any> {
  const r = await mcp(h, call(name, args), { token });
  expect(r.status, r.text).toBe(200);
  expect(r.body.result?.isError, r.text).toBe(false);
  const out = toolText(r.body);
  expect(r.body.result.structuredContent).toEqual(out);
  return out;
}

/** A tool-level failure (HTTP 200, isError true); returns its error envelope ({error}). */
export async function toolFails(h: Harness, token: string, name: string, args: Args = {}): Promise<any> {
  const r = await mcp(h, call(name, args), { token });
  expect(r.status, r.text).toBe(200);
  expect(r.body.result?.isError, r.text).toBe(true);
  return toolText(r.body);
}

/** A JSON-RPC input error (HTTP 200, -32602 INVALID_INPUT, naming `field` when given); returns error.data. */
export async function toolInvalid(
  h: Harness,
  token: string,
  name: string,
  args: Args,
  field?: string,
): Promise<{ field: string; errors: Array<{ field: string; code: string; message: string }> }> {
  const r = await mcp(h, call(name, args), { token });
  expect(r.status, r.text).toBe(200);
  expect(r.body.error, r.text).toMatchObject({ code: -32602, data: { type: 'INVALID_INPUT', ...(field === undefined ? {} : { field }) } });
  return r.body.error.data;
}

/**
 * The tool-call helpers of the MCP tests, acting as an agent (its token), bound to a harness read
 * at call time (test files assign it in beforeAll, after this is called).
 */
export function toolCalls(harness: () => Harness) {
  return {
    /** A fresh user of `role` with a token holding `scopes` (omitted: `*`); see agents(). */
    agent: agents(harness).agent,
    /** The raw response of a tools/call. */
    raw: (a: AgentUser, name: string, args: Args = {}) => mcp(harness(), call(name, args), { token: a.token }),
    ok: (a: AgentUser, name: string, args: Args = {}) => toolOk(harness(), a.token, name, args),
    fails: (a: AgentUser, name: string, args: Args = {}) => toolFails(harness(), a.token, name, args),
    /** A tool-level failure in the flat form: its error string. */
    async flatError(a: AgentUser, name: string, args: Args = {}): Promise<string> {
      const out = await toolFails(harness(), a.token, name, args);
      expect(typeof out.error).toBe('string');
      return out.error;
    },
    invalid: (a: AgentUser, name: string, args: Args, field?: string) => toolInvalid(harness(), a.token, name, args, field),
  };
}

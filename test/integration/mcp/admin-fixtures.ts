// Fixtures shared by the admin and account tool tests (SPEC C tool tables, "Agent token scopes",
// Errors "Agent protocol errors" and the two tool-result error forms).
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { expect } from 'vitest';
import { TOOLS_BY_NAME } from '../../../src/transports/mcp/tools/index.js';
import { newUser, type Harness, type TestUser } from '../../helpers/harness.js';
import { call, mcp, newAgent, toolInvalid, toolOk, toolText, type AgentUser } from './rpc.js';

// Every successful output must validate against the advertised outputSchema (SDK clients check it).
const ajv = new Ajv2020.default({ strict: false, allErrors: true });
addFormats.default(ajv);
const validators = new Map([...TOOLS_BY_NAME].map(([name, t]) => [name, ajv.compile(t.listing.outputSchema ?? {})]));

/** An agent token for a fresh user of `role` (default admin) holding `scopes` (omitted: `*`). */
export async function agentWithRole(h: Harness, role: string, scopes?: string[]): Promise<AgentUser & { user: TestUser }> {
  const user = await newUser(h, role);
  return { ...(await newAgent(h, scopes, user)), user };
}

export const adminAgent = (h: Harness, scopes?: string[]) => agentWithRole(h, 'admin', scopes);
export const memberAgent = (h: Harness, scopes?: string[]) => agentWithRole(h, 'member', scopes);

/** Calls a tool; asserts HTTP 200 and a JSON-RPC result (not an error); returns the response body. */
export async function callTool(h: Harness, token: string, name: string, args: Record<string, unknown> = {}): Promise<any> {
  const r = await mcp(h, call(name, args), { token });
  expect(r.status, r.text).toBe(200);
  expect(r.body.error, r.text).toBeUndefined();
  return r.body;
}

/** The tool's successful output (isError false; structuredContent equals the text), valid against its outputSchema. */
export async function ok(h: Harness, token: string, name: string, args: Record<string, unknown> = {}): Promise<any> {
  const out = await toolOk(h, token, name, args);
  const validate = validators.get(name)!;
  expect(validate(out), `${name} output vs outputSchema: ${JSON.stringify(validate.errors)}`).toBe(true);
  return out;
}

/** The tool's error envelope (isError true, no structuredContent). */
export async function failed(h: Harness, token: string, name: string, args: Record<string, unknown> = {}): Promise<any> {
  const body = await callTool(h, token, name, args);
  expect(body.result.isError, JSON.stringify(body.result)).toBe(true);
  expect(body.result.structuredContent).toBeUndefined();
  return toolText(body);
}

/** A token lacking the scope: HTTP 403, JSON-RPC -32003 naming the missing scope. */
export async function expectMissingScope(h: Harness, token: string, name: string, args: Record<string, unknown>, scope: string): Promise<void> {
  const r = await mcp(h, call(name, args), { token });
  expect(r.status, r.text).toBe(403);
  expect(r.body.error).toMatchObject({ code: -32003, data: { type: 'FORBIDDEN', code: 'missing_scope', missing_scope: scope } });
  expect(r.body.error.message).toContain(scope);
}

/** Input failing the tool's schema: -32602 with data.field. */
export async function expectInvalidParams(h: Harness, token: string, name: string, args: Record<string, unknown>, field: string): Promise<void> {
  await toolInvalid(h, token, name, args, field);
}

export const FLAT_ADMIN_ONLY = { error: 'FORBIDDEN: admin only' };
export const STRUCTURED_ADMIN_ONLY = { error: { type: 'forbidden', title: 'forbidden_admin_only', detail: 'admin only' } };

export const sqlOf =
  (h: Harness) =>
  (q: string, params: unknown[] = []) =>
    h.svc.deps.orm.em.getConnection().execute(q, params) as Promise<any[]>;

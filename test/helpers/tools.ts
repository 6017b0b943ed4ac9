// Fixtures for the tools-token (mode 3) flows: admin-owned tools-tokens of fresh integrators,
// employees approved for an integrator's catalog row, claimed personal tokens, and small SQL
// helpers. Every fixture makes its own rows, so tests in one file never share state; each test
// should use its own tools-token (the 60 requests/minute budget is per token).
import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { http, newUser, operator, type Harness, type HttpResult, type TestUser } from './harness.js';

export const tag = (): string => randomBytes(4).toString('hex');

/** Raw SQL against the harness database (reads and the few state changes the API has no route for). */
export const sql = <T = any>(h: Harness, q: string, params: unknown[] = []): Promise<T[]> =>
  h.svc.deps.orm.em.getConnection().execute(q, params) as Promise<T[]>;

export interface ToolsFixture {
  /** The tools-token's owner. */
  admin: TestUser;
  tokenId: string;
  token: string;
  integratorSlug: string;
  /** `<integratorSlug>.` */
  prefix: string;
  /** `<integratorSlug>.inbound-token` */
  catalogSlug: string;
  catalogRowId: string;
}

/** An admin (role `admin` unless given) with a tools-token of a fresh, unique integrator. */
export async function adminTools(h: Harness, opts: { role?: string; owner?: TestUser; integrator?: string; name?: string } = {}): Promise<ToolsFixture> {
  const admin = opts.owner ?? (await newUser(h, opts.role ?? 'admin'));
  const integrator = opts.integrator ?? `it-${tag()}`;
  const created = await operator<{ tokenId: string; token: string; integratorSlug: string; catalogSlug: string; catalogRowId: string }>(
    h,
    'tokens.create_tools',
    {
      owner: admin.email,
      integrator,
      name: opts.name ?? `tools ${integrator}`,
    },
  );
  return { admin, ...created, prefix: `${created.integratorSlug}.` };
}

/** A second admin tools-token of the SAME integrator (another caller of the same catalog row). */
export async function extraToolsToken(h: Harness, tools: ToolsFixture): Promise<ToolsFixture> {
  return adminTools(h, { integrator: tools.integratorSlug });
}

/** Demotes the tools-token's owner to `member`: the token stays valid but is no longer admin-owned. */
export async function demote(h: Harness, userId: string): Promise<void> {
  await sql(h, `update users set role = 'member' where id = ?`, [userId]);
}

/** An admin tools-token whose owner was demoted afterwards (authenticates, but is not admin). */
export async function nonAdminTools(h: Harness): Promise<ToolsFixture> {
  const t = await adminTools(h);
  await demote(h, t.admin.userId);
  return t;
}

/** Admin assign through the REST route (201). */
export async function assign(h: Harness, tools: ToolsFixture, email: string): Promise<HttpResult> {
  return http(h, 'POST', '/api/v1/catalog/approvals', { token: tools.token, body: { email, catalog_slug: tools.catalogSlug } });
}

/** A fresh employee with an approved request for the integrator's catalog row (admin assign). */
export async function approvedEmployee(h: Harness, tools: ToolsFixture, user?: TestUser): Promise<TestUser & { approvalId: string }> {
  const u = user ?? (await newUser(h));
  const r = await assign(h, tools, u.email);
  expect(r.status, r.text).toBe(201);
  return { ...u, approvalId: r.body.id };
}

/** An employee's pending application (operator op `catalog.requests.create`). */
export async function pendingRequest(h: Harness, email: string, catalogSlug: string): Promise<string> {
  const r = await operator<{ requestId: string; status: string }>(h, 'catalog.requests.create', { email, catalog_slug: catalogSlug });
  expect(r.status).toBe('pending');
  return r.requestId;
}

export interface ClaimedFixture {
  user: TestUser & { approvalId: string };
  token: string;
  tokenId: string;
}

export const claim = (h: Harness, toolsToken: string, body: Record<string, unknown>): Promise<HttpResult> =>
  http(h, 'POST', '/api/v1/tokens/claim', { token: toolsToken, body });

/** An approved employee with a claimed personal token of the integrator. */
export async function claimedEmployee(h: Harness, tools: ToolsFixture, user?: TestUser): Promise<ClaimedFixture> {
  const u = await approvedEmployee(h, tools, user);
  const r = await claim(h, tools.token, { email: u.email });
  expect(r.status, r.text).toBe(200);
  return { user: u, token: r.body.token, tokenId: r.body.tokenId };
}

/** An agent token (`sk-svc-`) for a fresh user. */
export async function agentToken(h: Harness): Promise<string> {
  const u = await newUser(h);
  const t = await operator<{ token: string }>(h, 'agent_tokens.create', { email: u.email });
  return t.token;
}

/** A well-formed personal token value that no row holds. */
export const unknownPersonalToken = (): string => `svc-in-pers-${randomBytes(24).toString('base64url')}`;

/** Asserts a REST problem: status, `code`, and (optionally) the type slug. */
export function expectProblem(r: HttpResult, status: number, code?: string, typeSlug?: string): void {
  expect(r.status, r.text).toBe(status);
  expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  if (code !== undefined) expect(r.body.code, r.text).toBe(code);
  if (typeSlug !== undefined) expect(r.body.type).toMatch(new RegExp(`/${typeSlug}$`));
}

/** The field errors of a 400 problem, by field path. */
export const fieldCodes = (r: HttpResult): Array<{ field: string; code: string }> =>
  ((r.body?.errors ?? []) as Array<{ field: string; code: string }>).map((e) => ({ field: e.field, code: e.code }));

export const HOUR_MS = 60 * 60 * 1000;
export const DAY_MS = 24 * HOUR_MS;

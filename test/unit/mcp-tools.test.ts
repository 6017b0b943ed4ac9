// The MCP tool roster and its error mapping, without a server (SPEC C read/write tool tables,
// "Agent token scopes", Errors "Agent protocol errors" and the two tool-result error forms).
import { describe, expect, it } from 'vitest';
import { AGENT_OPERATIONS } from '../../src/app/operations.js';
import { DomainError, ERROR_KINDS, notFound, validationFailed } from '../../src/domain/errors.js';
import { KNOWN_SCOPES } from '../../src/domain/tokens/scopes.rules.js';
import { classifyToolError, toolErrorEnvelope } from '../../src/transports/mcp/errors.js';
import { TOOLS, TOOLS_BY_NAME } from '../../src/transports/mcp/tools/index.js';

const SPEC_SCOPES: Record<string, string[]> = {
  whoami: [],
  ping: [],
  list_inbox: ['read:inbox'],
  get_notification: ['read:inbox'],
  mark_notification_read: ['write:inbox'],
  mark_notifications_done: ['write:inbox'],
  move_notifications_to_inbox: ['write:inbox'],
  snooze_notification: ['write:inbox'],
  mark_all_notifications_read: ['write:inbox'],
  issue_personal_inbound_token: ['write:inbox'],
  revoke_personal_token: ['write:inbox'],
  revoke_admin_token: ['admin:tokens'],
  issue_admin_tools_claim_token: ['admin:tokens'],
  list_inbound_tokens: ['admin:catalog'],
  // Not in the scope vocabulary: inbound follow-ups of the caller's own deliveries.
  resolve_inbound_event: ['write:inbound'],
  supplement_inbound_event: ['write:inbound'],
  broadcast_event: ['admin:broadcast'],
  assign_catalog_to_employee: ['admin:approvals'],
  revoke_catalog_approval: ['admin:approvals'],
  approve_team_support_request: ['admin:approvals'],
  create_team_support_request_on_behalf: ['admin:on_behalf_of'],
  list_pending_team_support_requests: ['admin:approvals'],
  list_approvals_for_user: ['admin:approvals'],
  catalog_item_create: ['admin:catalog'],
  catalog_item_list: ['admin:catalog'],
  catalog_item_update: ['admin:catalog'],
  catalog_item_delete: ['admin:catalog'],
  invite_user: ['admin:users'],
  search_user_by_username: ['admin:users'],
  // Work coordination (tasks, projects, daily updates).
  list_projects: ['read:meta'],
  list_tasks: ['read:tasks'],
  get_task: ['read:tasks'],
  get_owner_intake_templates: ['read:tasks'],
  create_task: ['write:tasks'],
  publish_task_draft: ['write:tasks'],
  claim_task: ['write:tasks'],
  update_task_status: ['write:tasks'],
  add_task_comment: ['write:tasks'],
  submit_daily_update: ['write:tasks'],
  // Documents.
  list_docs: ['read:docs'],
  get_doc: ['read:docs'],
  search_docs: ['read:docs'],
  list_doc_drafts: ['read:docs'],
  list_tags: ['read:docs'],
  search_by_tags: ['read:docs'],
  create_doc_draft: ['write:docs:draft'],
  update_doc_draft: ['write:docs:draft'],
  publish_doc_draft: ['write:docs:publish'],
  archive_doc: ['write:docs:publish'],
  restore_doc: ['write:docs:publish'],
  update_doc: ['write:docs:publish'],
  tag_doc: ['write:docs:draft', 'write:docs:publish'],
  untag_doc: ['write:docs:draft', 'write:docs:publish'],
  // Feedback.
  list_feedback: ['read:feedback'],
  get_feedback: ['read:feedback'],
  create_feedback: ['write:feedback'],
  add_feedback_comment: ['write:feedback'],
  // Repositories.
  list_project_repositories: ['read:projects'],
  list_project_repository_commits: ['read:projects'],
  bind_project_repository: ['code:repo:bind', 'admin:projects'],
  unbind_project_repository: ['code:repo:bind', 'admin:projects'],
  // Search.
  search: ['read:*'],
  // Moderation.
  issue_admin_moderation_token: ['admin:tokens'],
};

describe('tool roster', () => {
  it("is the live set, each tool wrapping one registered agent operation with the spec's scope", () => {
    expect(TOOLS.map((t) => t.name).sort()).toEqual(Object.keys(SPEC_SCOPES).sort());
    for (const t of TOOLS) {
      expect(t.operation.auth).toEqual({ kind: 'agent' });
      expect(AGENT_OPERATIONS[t.operation.name]).toBe(t.operation);
      expect(t.operation.budget).toBe('agent');
      const listing = TOOLS_BY_NAME.get(t.name)!.listing;
      expect(listing.requiredScopes).toEqual(SPEC_SCOPES[t.name]);
      for (const s of listing.requiredScopes) expect(KNOWN_SCOPES).toContain(s);
      expect(listing.inputSchema.type).toBe('object');
      expect(listing.inputSchema.$schema).toBeUndefined();
      expect(listing.outputSchema?.type).toBe('object');
      expect(t.name).toMatch(/^[a-z_]{1,64}$/);
    }
  });
});

describe('error mapping', () => {
  it('every error kind has a channel: a JSON-RPC error or a tool result', () => {
    for (const kind of ERROR_KINDS) expect(['rpc', 'tool']).toContain(classifyToolError(new DomainError(kind, 'x')).kind);
  });

  it('missing scope is -32003 / 403; schema errors -32602 with data.field; rate limit -32005 / 429 with Retry-After', () => {
    const scope = classifyToolError(
      new DomainError('forbidden', 'missing scope: write:inbox', { code: 'missing_scope', extra: { required_scope: 'write:inbox' } }),
    );
    expect(scope).toMatchObject({ kind: 'rpc', error: { code: -32003, status: 403, data: { type: 'FORBIDDEN', missing_scope: 'write:inbox' } } });
    const schema = classifyToolError(
      validationFailed([
        { field: 'limit', code: 'too_big', message: 'must be at most 200' },
        { field: 'type', code: 'invalid_enum', message: 'x' },
      ]),
    );
    expect(schema).toMatchObject({
      kind: 'rpc',
      error: { code: -32602, status: 200, data: { type: 'INVALID_INPUT', field: 'limit', errors: [{ field: 'limit' }, { field: 'type' }] } },
    });
    const rate = classifyToolError(
      new DomainError('rate_limited', 'slow down', { rateLimit: { limit: 60, remaining: 0, resetAtUnix: 1, retryAfterSeconds: 12 } }),
    );
    expect(rate).toMatchObject({ kind: 'rpc', error: { code: -32005, status: 429, headers: { 'retry-after': 12, 'x-ratelimit-limit': 60 } } });
    const internal = classifyToolError(new DomainError('internal', 'db exploded at row 7'));
    expect(internal).toMatchObject({ kind: 'rpc', error: { code: -32603, status: 500 } });
    if (internal.kind === 'rpc') expect(internal.error.message).not.toContain('row 7');
  });

  it("a tool's own failures stay in its result: not found, business-rule refusals", () => {
    expect(classifyToolError(notFound('notification')).kind).toBe('tool');
    expect(classifyToolError(new DomainError('forbidden', 'only the assignee', { code: 'permission_denied' })).kind).toBe('tool');
    expect(classifyToolError(new DomainError('validation', 'project_slug is required', { code: 'project_slug_required' })).kind).toBe('tool');
  });

  it('flat form: {error: "<TYPE>: <message>"}', () => {
    expect(toolErrorEnvelope(notFound('notification'), 'flat', 'https://e')).toEqual({ error: 'NOT_FOUND: notification not found' });
    expect(toolErrorEnvelope(new DomainError('conflict', 'already claimed'), 'flat', 'https://e')).toEqual({ error: 'CONFLICT: already claimed' });
  });

  it('structured form: {error: {type, title, detail, field?}}, a problem URI for 422 cases', () => {
    expect(toolErrorEnvelope(notFound('assignee'), 'structured', 'https://e')).toEqual({
      error: { type: 'not_found', title: 'not found', detail: 'assignee not found' },
    });
    expect(
      toolErrorEnvelope(
        new DomainError('forbidden', 'cannot assign', { code: 'permission_denied', extra: { field: 'assignee_email' } }),
        'structured',
        'https://e',
      ),
    ).toEqual({
      error: { type: 'forbidden', title: 'permission_denied', detail: 'cannot assign', field: 'assignee_email' },
    });
    expect(
      toolErrorEnvelope(new DomainError('unprocessable', 'no user', { code: 'user_not_found', typeSlug: 'user-not-found' }), 'structured', 'https://e/errors'),
    ).toMatchObject({
      error: { type: 'https://e/errors/user-not-found', detail: 'no user' },
    });
    expect(
      toolErrorEnvelope(
        new DomainError('validation', 'too long', { code: 'body_too_long', issues: [{ field: 'body', code: 'too_long', message: 'too long' }] }),
        'structured',
        'https://e',
      ),
    ).toMatchObject({
      error: { type: 'validation_failed', field: 'body' },
    });
  });
});

import { listApprovalsForUser, ListApprovalsForUserOutput } from '../../../domain/catalog/list-approvals-for-user.js';
import type { ToolDefinition } from './tool.js';

export const listApprovalsForUserTool: ToolDefinition = {
  name: 'list_approvals_for_user',
  title: 'List approvals for user (admin)',
  description:
    "One employee's catalog requests, newest first: {items[{approval_id, catalog_slug, catalog_name, status, created_at, decided_at, decided_by}]}. status filter: approved (default; approved, in_execution, completed), revoked (withdrawn, rejected, cancelled, revoked), pending, all. Structured errors. Admin users only.",
  operation: listApprovalsForUser,
  output: ListApprovalsForUserOutput,
  errorForm: 'structured',
  readOnly: true,
};

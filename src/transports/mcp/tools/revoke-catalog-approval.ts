import { adminRevokeCatalogApproval, RevokeCatalogApprovalOutput } from '../../../domain/catalog/revoke-catalog-approval-by-agent.js';
import type { ToolDefinition } from './tool.js';

export const revokeCatalogApprovalTool: ToolDefinition = {
  name: 'revoke_catalog_approval',
  title: 'Revoke catalog approval (admin)',
  description:
    'Revokes an approval addressed by (catalog_slug and email) or approval_id, exactly one: {revoked, tokens_invalidated, addressedBy, approval_id}. A real change notifies the employee unless notify_employee is false; a repeat is a no-op (revoked false) and notifies no one. Personal tokens minted under the approval are invalidated. Structured errors. Admin users only.',
  operation: adminRevokeCatalogApproval,
  output: RevokeCatalogApprovalOutput,
  errorForm: 'structured',
  readOnly: false,
  destructive: true,
};

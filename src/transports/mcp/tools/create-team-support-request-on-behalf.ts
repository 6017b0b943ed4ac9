import { createTeamSupportRequestOnBehalf, CreateTeamSupportRequestOnBehalfOutput } from '../../../domain/catalog/create-team-support-request-on-behalf.js';
import type { ToolDefinition } from './tool.js';

export const createTeamSupportRequestOnBehalfTool: ToolDefinition = {
  name: 'create_team_support_request_on_behalf',
  title: 'File team-support request on behalf (admin)',
  description:
    'Files a pending request for another user (email) for a catalog row (catalog_slug or catalog_id, exactly one): {request_id, status, idempotent}. A live request the user already has is returned (idempotent: true). Needs admin:on_behalf_of. Structured errors. Admin users only.',
  operation: createTeamSupportRequestOnBehalf,
  output: CreateTeamSupportRequestOnBehalfOutput,
  errorForm: 'structured',
  readOnly: false,
};

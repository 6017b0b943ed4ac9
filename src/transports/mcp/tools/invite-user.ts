import { inviteUser, InviteUserOutput } from '../../../domain/users/invite-user.js';
import type { ToolDefinition } from './tool.js';

export const inviteUserTool: ToolDefinition = {
  name: 'invite_user',
  title: 'Invite user (admin)',
  description:
    'Creates a user with an onboarding checklist, notification preferences and a welcome inbox notification: {user_id, email, name, status, invite_sent: true}. Structured errors: user-already-exists (with user_id) and domain-not-allowed on field email. Admin users only; only a super admin invites a super admin.',
  operation: inviteUser,
  output: InviteUserOutput,
  errorForm: 'structured',
  readOnly: false,
  idempotent: false,
};

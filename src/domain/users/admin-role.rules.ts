// Role checks for agent-token callers: admin operations need the token's user to be an admin,
// and nobody changes an account that ranks above their own. Checked on the server for each call.
import type { AgentPrincipal } from '../principal.js';
import { DomainError } from '../errors.js';
import { ADMIN_ROLES } from './users.entity.js';

export function requireAdminUser(p: AgentPrincipal): void {
  if (!ADMIN_ROLES.includes(p.userRole)) throw new DomainError('forbidden', 'admin only', { code: 'forbidden_admin_only' });
}

/**
 * A change to a user holding `targetRole` (offboarding, a role change): a super admin's account
 * is changed only by a super admin, as `invite_user` grants super_admin only from one.
 */
export function requireRankOver(p: AgentPrincipal, targetRole: string): void {
  if (targetRole === 'super_admin' && p.userRole !== 'super_admin') {
    throw new DomainError('forbidden', 'only a super admin may change or offboard a super admin', { code: 'permission_denied' });
  }
}

// Role checks for tools-token callers (SPEC Authentication 7): every tools-token operation needs
// an admin-owned tools-token; checked on the server for each call.
import type { InboundTokenPrincipal } from '../principal.js';
import { DomainError } from '../errors.js';
import { ADMIN_ROLES } from '../users/users.entity.js';

export function requireAdminToolsToken(p: InboundTokenPrincipal): void {
  if (p.kind !== 'tools_claim' || !ADMIN_ROLES.includes(p.userRole)) {
    throw new DomainError('forbidden', 'this operation needs a tools-token owned by an admin', { code: 'forbidden_admin_only' });
  }
}

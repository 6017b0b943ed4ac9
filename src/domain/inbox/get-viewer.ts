// ViewerService.GetViewer: who is signed in (the web app asks first; unauthenticated sends it to
// the sign-in page). Any agent token or web session: no scope needed, like `whoami`. The identity
// is the one the authentication just read (no statement of its own).
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { ADMIN_ROLES } from '../users/users.entity.js';

export const GetViewerInput = z.strictObject({});

export interface Viewer {
  userId: string;
  email: string;
  name: string;
  /** `admin` (admin, super_admin) or `member` (every other role). */
  role: 'admin' | 'member';
}

export const getViewer = defineOperation<z.infer<typeof GetViewerInput>, Viewer, AgentPrincipal>({
  name: 'viewer.get',
  auth: { kind: 'agent' },
  budget: 'agent',
  idempotent: false,
  input: GetViewerInput,
  handler: async (_input, ctx) => {
    const p = ctx.principal;
    return { userId: p.userId, email: p.userEmail, name: p.userName, role: ADMIN_ROLES.includes(p.userRole) ? 'admin' : 'member' };
  },
});

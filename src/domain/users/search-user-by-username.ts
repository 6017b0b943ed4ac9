// `search_user_by_username` (SPEC C read tools; admin, scope admin:users): users whose email
// local part matches `username` (exact first, then prefix, then substring), at most 20. A
// username containing "@" is the structured 422 `username_contains_at`.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { DomainError } from '../errors.js';
import { iso } from '../timestamps.js';
import { requireAdminUser } from './admin-role.rules.js';
import { searchUsersByLocalPart } from './users.repository.js';
import { emailDomain } from './users.rules.js';
import { USER_LIMITS } from './users.limits.js';

export const SearchUserByUsernameInput = z.strictObject({
  username: z.string().trim().min(1).max(USER_LIMITS.usernameMax),
  only_active: z.boolean().default(true),
});

export const UserSearchItem = z.object({
  user_id: z.uuid(),
  email: z.string(),
  name: z.string(),
  role: z.string(),
  status: z.string(),
  domain: z.string(),
  created_at: z.iso.datetime(),
});
export const SearchUserByUsernameOutput = z.object({ items: z.array(UserSearchItem) });
export type SearchUserByUsernameResult = z.infer<typeof SearchUserByUsernameOutput>;

export const searchUserByUsername = defineOperation<z.infer<typeof SearchUserByUsernameInput>, SearchUserByUsernameResult, AgentPrincipal>({
  name: 'users.search_by_username',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['admin:users'],
  idempotent: false,
  input: SearchUserByUsernameInput,
  handler: async (input, ctx) => {
    requireAdminUser(ctx.principal);
    if (input.username.includes('@')) {
      throw new DomainError('unprocessable', 'username is the local part of an email address and must not contain "@"', {
        code: 'username_contains_at',
        typeSlug: 'username-contains-at',
        extra: { field: 'username' },
      });
    }
    // Emails are stored lower-case; the match and the ranking happen in SQL.
    const rows = await searchUsersByLocalPart(ctx.em, input.username.toLowerCase(), input.only_active, USER_LIMITS.searchResultsMax);
    return {
      items: rows.map((r) => ({
        user_id: r.id,
        email: r.email,
        name: r.name,
        role: r.role,
        status: r.status,
        domain: emailDomain(r.email),
        created_at: iso(r.created_at),
      })),
    };
  },
});

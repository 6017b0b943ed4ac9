// `invite_user` (SPEC C write tools; admin, scope admin:users): creates the user with their
// profile, onboarding checklist and notification preferences, and a welcome inbox notification,
// in one transaction. The audit actor is the caller. Errors are the structured 422 cases
// `domain-not-allowed` and `user-already-exists` (with `user_id`), both on field `email`.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { DomainError } from '../errors.js';
import { addNotification } from '../inbox/notify.js';
import { requireAdminUser } from './admin-role.rules.js';
import { recordToolAudit } from '../audit/tool-audit.js';
import { insertUser, userAlreadyExists } from './create-user.js';
import { insertOnboardingRows } from './onboarding.repository.js';
import {
  defaultNotificationPreferences,
  EMPLOYMENT_TYPES,
  INVITABLE_ROLES,
  LOCATIONS,
  onboardingChecklist,
  UI_LANGUAGES,
  USER_STATUSES,
  welcomeNotification,
} from './onboarding.rules.js';
import { findUserByEmail } from './users.repository.js';
import { assertDomainAllowed, normalizeEmail } from './users.rules.js';
import { USER_LIMITS } from './users.limits.js';

export const InviteUserInput = z.strictObject({
  email: z.email({ error: 'must be a valid email address' }).max(USER_LIMITS.emailMax),
  name: z.string().trim().min(1).max(USER_LIMITS.nameMax),
  role: z.enum(INVITABLE_ROLES).default('member'),
  employment_type: z.enum(EMPLOYMENT_TYPES).default('full_time'),
  location: z.enum(LOCATIONS).default('overseas'),
  ui_language: z.enum(UI_LANGUAGES).default('zh'),
  status: z.enum(USER_STATUSES).default('active'),
});
export type InviteUserInput = z.infer<typeof InviteUserInput>;

export const InviteUserOutput = z.object({
  user_id: z.uuid(),
  email: z.string(),
  name: z.string(),
  status: z.enum(USER_STATUSES),
  invite_sent: z.literal(true),
});
export type InviteUserResult = z.infer<typeof InviteUserOutput>;

/** The same error, pointing at an input field (structured tool errors carry `field`). */
const atField = (err: unknown, field: string): unknown =>
  err instanceof DomainError
    ? new DomainError(err.kind, err.message, { code: err.code, typeSlug: err.typeSlug, issues: err.issues, extra: { ...err.extra, field } })
    : err;

const isUniqueViolation = (err: unknown) =>
  (err as { code?: string })?.code === '23505' || (err as { name?: string })?.name === 'UniqueConstraintViolationException';

export const inviteUser = defineOperation<InviteUserInput, InviteUserResult, AgentPrincipal>({
  name: 'users.invite',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['admin:users'],
  idempotent: false,
  writes: true,
  input: InviteUserInput,
  handler: async (input, ctx) => {
    requireAdminUser(ctx.principal);
    // Nobody grants more than they hold: only a super admin makes another one.
    if (input.role === 'super_admin' && ctx.principal.userRole !== 'super_admin') {
      throw new DomainError('forbidden', 'only a super admin may invite a super admin', { code: 'permission_denied', extra: { field: 'role' } });
    }
    const email = normalizeEmail(input.email);
    try {
      assertDomainAllowed(email, ctx.config.allowedEmailDomains);
    } catch (err) {
      throw atField(err, 'email');
    }
    const em = ctx.em;
    try {
      const existing = await findUserByEmail(em, email);
      if (existing) throw userAlreadyExists(existing, { field: 'email' });
      const now = ctx.clock.now();
      const user = insertUser(em, ctx, { email, name: input.name, role: input.role, status: input.status });
      await em.flush(); // scalar foreign keys: the user row must exist before its profile rows
      const checklist = onboardingChecklist({ employmentType: input.employment_type, location: input.location });
      const { checklistId } = await insertOnboardingRows(em, {
        userId: user.id,
        invitedByUserId: ctx.principal.userId,
        profile: { employmentType: input.employment_type, location: input.location, uiLanguage: input.ui_language },
        checklist,
        preferences: defaultNotificationPreferences({ uiLanguage: input.ui_language }),
        now,
      });
      const welcome = welcomeNotification(user.name, checklist.length);
      addNotification(em, now, {
        userId: user.id,
        title: welcome.title,
        summary: welcome.summary,
        targetUrl: `${ctx.config.publicBaseUrl}${welcome.path}`,
        actorUserId: ctx.principal.userId,
        actorName: ctx.principal.userName,
        tags: ['onboarding'],
      });
      recordToolAudit(em, ctx, {
        tool: 'invite_user',
        action: 'users.invited',
        targetType: 'user',
        targetId: user.id,
        summary: {
          role: input.role,
          status: input.status,
          employment_type: input.employment_type,
          location: input.location,
          ui_language: input.ui_language,
          checklist_id: checklistId,
        },
      });
      return { user_id: user.id, email: user.email, name: user.name, status: input.status, invite_sent: true as const };
    } catch (err) {
      // A concurrent invite of the same email won the unique index: the same answer as a repeat
      // (read outside this call's transaction, which the failed insert aborted).
      if (isUniqueViolation(err)) {
        const existing = await findUserByEmail(em.fork(), email);
        if (existing) throw userAlreadyExists(existing, { field: 'email' });
      }
      throw err;
    }
  },
});

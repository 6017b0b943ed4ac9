// `get_owner_intake_templates` (SPEC C read tools, scope read:tasks): the starting description and
// checklists for a task meant for `owner_user_id` (wins) or `owner_email`; the caller when
// neither is given. An unknown owner is NOT_FOUND. Templates carry no personal data, so any
// agent caller may read anyone's.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { notFound } from '../errors.js';
import { IntakeChecklist, IntakeDescription, INTAKE_SOURCES, resolveIntakeTemplates } from './intake-templates.rules.js';
import { findOwnerTemplates } from './intake-templates.repository.js';
import { userByEmail, userById } from './tasks.repository.js';
import { USER_LIMITS } from '../users/users.limits.js';

export const GetOwnerIntakeTemplatesInput = z.strictObject({
  owner_email: z.email({ error: 'must be a valid email address' }).max(USER_LIMITS.emailMax).optional(),
  owner_user_id: z.uuid({ error: 'must be a UUID' }).optional(),
});
export type GetOwnerIntakeTemplatesInput = z.infer<typeof GetOwnerIntakeTemplatesInput>;

export const GetOwnerIntakeTemplatesOutput = z.object({
  owner: z.object({ id: z.uuid(), email: z.string(), name: z.string() }),
  description: IntakeDescription,
  description_source: z.enum(INTAKE_SOURCES),
  checklists: z.array(IntakeChecklist),
  checklist_source: z.enum(INTAKE_SOURCES),
});
export type GetOwnerIntakeTemplatesResult = z.infer<typeof GetOwnerIntakeTemplatesOutput>;

export const getOwnerIntakeTemplates = defineOperation<GetOwnerIntakeTemplatesInput, GetOwnerIntakeTemplatesResult, AgentPrincipal>({
  name: 'tasks.owner_intake_templates',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['read:tasks'],
  idempotent: false,
  input: GetOwnerIntakeTemplatesInput,
  handler: async (input, ctx) => {
    const owner =
      input.owner_user_id !== undefined
        ? await userById(ctx.em, input.owner_user_id)
        : input.owner_email !== undefined
          ? await userByEmail(ctx.em, input.owner_email)
          : await userById(ctx.em, ctx.principal.userId);
    if (!owner) throw notFound('owner');
    const resolved = resolveIntakeTemplates(await findOwnerTemplates(ctx.em, owner.id));
    return { owner: { id: owner.id, email: owner.email, name: owner.name }, ...resolved };
  },
});

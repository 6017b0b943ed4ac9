// Operator operation (CLI): set or clear an owner's intake templates. `description` null and
// `checklists` null mean "use the system default"; `checklists: []` means "no checklist"
// (get_owner_intake_templates then reports checklist_source `none`). `clear: true` deletes the row.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import { recordAudit } from '../audit/audit.js';
import { requireUserByEmail } from '../users/users.repository.js';
import { IntakeChecklist, IntakeDescription } from './intake-templates.rules.js';
import { deleteOwnerTemplates, upsertOwnerTemplates } from './intake-templates.repository.js';
import { TASK_AUDIT } from './tasks.audit.js';
import { USER_LIMITS } from '../users/users.limits.js';
import { TASK_LIMITS } from './tasks.limits.js';

export const SetOwnerIntakeTemplatesInput = z.strictObject({
  owner_email: z.email().max(USER_LIMITS.emailMax),
  description: IntakeDescription.nullable().default(null),
  checklists: z.array(IntakeChecklist).max(TASK_LIMITS.intakeChecklistsMax).nullable().default(null),
  clear: z.boolean().default(false),
});

export const setOwnerIntakeTemplates = defineOperation<z.infer<typeof SetOwnerIntakeTemplatesInput>, { ownerUserId: string; cleared: boolean }>({
  name: 'tasks.set_owner_intake_templates',
  auth: { kind: 'system' },
  budget: null,
  idempotent: true,
  input: SetOwnerIntakeTemplatesInput,
  writes: true,
  handler: async (input, ctx) => {
    const { em } = ctx;
    const owner = await requireUserByEmail(em, input.owner_email);
    const now = ctx.clock.now();
    if (input.clear) await deleteOwnerTemplates(em, owner.id);
    else
      await upsertOwnerTemplates(
        em,
        owner.id,
        { descriptionLabel: input.description?.label ?? null, descriptionBody: input.description?.body ?? null, checklists: input.checklists },
        now,
      );
    recordAudit(em, ctx, {
      action: TASK_AUDIT.intakeTemplatesSet,
      targetType: 'user',
      targetId: owner.id,
      summary: { cleared: input.clear, hasDescription: input.description !== null, checklistCount: input.checklists?.length ?? null },
    });
    return { ownerUserId: owner.id, cleared: input.clear };
  },
});

// `submit_daily_update` (SPEC C write tools): the caller's availability and main tasks for the
// current UTC day of the service clock; a second submit the same day overwrites the entry
// (`updated: true`). The spec names no scope: this service requires `write:tasks` (it writes
// task-related personal data). Each of mainTaskIds is a task id or code the caller can see
// (else NOT_FOUND naming it); duplicates collapse. Audit without the free-text fields.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { DomainError } from '../errors.js';
import { recordToolAudit } from '../audit/tool-audit.js';
import { loadVisibleTask } from '../tasks/task-access.js';
import { isUuid, normalizeTaskCode, TASK_CODE_PATTERN } from '../tasks/tasks.rules.js';
import { upsertDailyUpdate } from './daily-updates.repository.js';
import { AVAILABILITY_STATUSES, utcDay } from './daily-updates.rules.js';
import { DAILY_UPDATE_LIMITS } from './daily-updates.limits.js';

export const DAILY_UPDATE_AUDIT = { submitted: 'daily_update.submitted' } as const;

const taskRef = z
  .string()
  .trim()
  .refine((s) => isUuid(s) || TASK_CODE_PATTERN.test(s), { error: 'must be a task id (UUID) or code' });

export const SubmitDailyUpdateInput = z.strictObject({
  availabilityStatus: z.enum(AVAILABILITY_STATUSES),
  mainTaskIds: z.array(taskRef).max(DAILY_UPDATE_LIMITS.mainTasksMax),
  contactWindow: z.string().trim().max(DAILY_UPDATE_LIMITS.contactWindowMax).optional(),
  blockers: z.string().trim().max(DAILY_UPDATE_LIMITS.blockersMax).optional(),
  note: z.string().trim().max(DAILY_UPDATE_LIMITS.noteMax).optional(),
});
export type SubmitDailyUpdateInput = z.infer<typeof SubmitDailyUpdateInput>;

export const SubmitDailyUpdateOutput = z.object({
  /** The UTC day the entry belongs to (YYYY-MM-DD). */
  date: z.iso.date(),
  /** true when an entry for that day already existed and was overwritten. */
  updated: z.boolean(),
});
export type SubmitDailyUpdateResult = z.infer<typeof SubmitDailyUpdateOutput>;

export const submitDailyUpdate = defineOperation<SubmitDailyUpdateInput, SubmitDailyUpdateResult, AgentPrincipal>({
  name: 'daily_updates.submit',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['write:tasks'],
  idempotent: true,
  input: SubmitDailyUpdateInput,
  writes: true,
  handler: async (input, ctx) => {
    const { em } = ctx;
    const ids: string[] = [];
    for (const raw of input.mainTaskIds) {
      const ref = isUuid(raw) ? { id: raw.toLowerCase() } : { code: normalizeTaskCode(raw) };
      try {
        const { task } = await loadVisibleTask(em, ctx.principal, ref);
        if (!ids.includes(task.id)) ids.push(task.id);
      } catch (err) {
        if (err instanceof DomainError && err.kind === 'not_found')
          throw new DomainError('not_found', `task ${raw} not found`, { code: 'not_found', extra: { field: 'mainTaskIds' } });
        throw err;
      }
    }
    const now = ctx.clock.now();
    const date = utcDay(now);
    const updated = await upsertDailyUpdate(em, {
      userId: ctx.principal.userId,
      day: date,
      availabilityStatus: input.availabilityStatus,
      mainTaskIds: ids,
      contactWindow: input.contactWindow || null,
      blockers: input.blockers || null,
      note: input.note || null,
      now,
    });
    recordToolAudit(em, ctx, {
      tool: 'submit_daily_update',
      action: DAILY_UPDATE_AUDIT.submitted,
      targetType: 'daily_update',
      targetId: null,
      summary: {
        date,
        updated,
        availabilityStatus: input.availabilityStatus,
        mainTaskCount: ids.length,
        hasBlockers: Boolean(input.blockers),
        hasNote: Boolean(input.note),
        hasContactWindow: Boolean(input.contactWindow),
      },
    });
    return { date, updated };
  },
});

// `create_task` (SPEC C write tools, scope write:tasks; structured errors; agent protocol 8 and 11):
// a task in a project the caller sees, coded `<PROJECT-SLUG-UPPER>-<n>` from the project's counter,
// or a draft (no code until publish, its assignee and reviewers re-checked by publish_task_draft).
// Assignee, reviewers and cc, and the parent go through task-placement.ts, shared with that tool.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { recordToolAudit } from '../audit/tool-audit.js';
import { addNotification } from '../inbox/notify.js';
import { findVisibleProject } from '../projects/projects.repository.js';
import { TASK_AUDIT } from './tasks.audit.js';
import { PersonRef, taskUrl } from './task.view.js';
import {
  assertMayAssign,
  createdTaskOutput,
  fieldError,
  projectSlugRequired,
  resolveAssignee,
  resolveParent,
  resolveParticipants,
  type CreatedTask,
} from './task-placement.js';
import { insertStatusHistory, insertTask, insertTaskPeople, nextTaskNumber } from './tasks.repository.js';
import {
  DEFAULT_TASK_KIND,
  DEFAULT_TASK_PRIORITY,
  INITIAL_TASK_STATUS,
  normalizeTaskCode,
  TASK_CODE_PATTERN,
  TASK_KINDS,
  TASK_PRIORITIES,
  TASK_STATUSES,
  taskCode,
} from './tasks.rules.js';
import { USER_LIMITS } from '../users/users.limits.js';
import { PROJECT_LIMITS } from '../projects/projects.limits.js';
import { TASK_LIMITS } from './tasks.limits.js';

export const CreateTaskInput = z.strictObject({
  title: z.string().trim().min(1).max(TASK_LIMITS.titleMax),
  /** Required unless as_draft; empty or null counts as missing. */
  project_slug: z.string().trim().max(PROJECT_LIMITS.slugMax).nullish(),
  description: z.string().max(TASK_LIMITS.descriptionMax).optional(),
  parent_task_code: z.string().trim().regex(TASK_CODE_PATTERN, { error: 'must be a task code such as PROJECT-12' }).optional(),
  assignee_email: z.email({ error: 'must be a valid email address' }).max(USER_LIMITS.emailMax).optional(),
  assignee_user_id: z.uuid({ error: 'must be a UUID' }).optional(),
  /** At most TASK_LIMITS.reviewersMax (checked by the tool: a structured validation_failed). Unknown, inactive and self ids are dropped. */
  reviewer_user_ids: z.array(z.string().max(TASK_LIMITS.userIdMax)).default([]),
  cc_emails: z.array(z.string().max(USER_LIMITS.emailMax)).max(TASK_LIMITS.ccMax).default([]),
  cc_user_ids: z.array(z.string().max(TASK_LIMITS.userIdMax)).max(TASK_LIMITS.ccMax).default([]),
  priority: z.enum(TASK_PRIORITIES).default(DEFAULT_TASK_PRIORITY),
  due_date: z.iso.date({ error: 'must be a date YYYY-MM-DD' }).optional(),
  kind: z.enum(TASK_KINDS).default(DEFAULT_TASK_KIND),
  as_draft: z.boolean().default(false),
});
export type CreateTaskInput = z.infer<typeof CreateTaskInput>;

export const CreateTaskOutput = z.object({
  task_id: z.uuid(),
  /** null for a draft (codes are handed out at publication). */
  code: z.string().nullable(),
  url: z.string(),
  assignee: PersonRef.nullable(),
  priority: z.enum(TASK_PRIORITIES),
  cc: z.array(PersonRef),
  reviewers: z.array(PersonRef),
  draft: z.boolean(),
  status: z.enum(TASK_STATUSES),
});

export const createTask = defineOperation<CreateTaskInput, CreatedTask, AgentPrincipal>({
  name: 'tasks.create',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['write:tasks'],
  idempotent: true,
  input: CreateTaskInput,
  writes: true,
  handler: async (input, ctx) => {
    const slug = input.project_slug ? input.project_slug : null;
    if (!slug && !input.as_draft) throw projectSlugRequired();
    if (input.reviewer_user_ids.length > TASK_LIMITS.reviewersMax) {
      throw fieldError('validation', `reviewer_user_ids takes at most ${TASK_LIMITS.reviewersMax} ids`, 'too_many_reviewers', 'reviewer_user_ids');
    }
    const principal = ctx.principal;
    const { em } = ctx;
    const project = slug ? await findVisibleProject(em, slug, principal) : null;
    if (slug && !project) throw fieldError('not_found', `project ${slug} not found`, 'project_not_found', 'project_slug');

    const parent = input.parent_task_code ? await resolveParent(em, principal, { code: normalizeTaskCode(input.parent_task_code) }, project?.id ?? null) : null;
    const assignee = await resolveAssignee(em, input);
    // Drafts keep their assignee as given; publication checks the permission (SPEC C create_task).
    if (assignee && project && !input.as_draft) await assertMayAssign(em, principal, project, assignee);
    const reviewers = await resolveParticipants(em, principal.userId, input.reviewer_user_ids, [], project?.id ?? null);
    const cc = await resolveParticipants(em, principal.userId, input.cc_user_ids, input.cc_emails, project?.id ?? null);

    const now = ctx.clock.now();
    const id = randomUUID();
    const number = project && !input.as_draft ? await nextTaskNumber(em, project.id) : null;
    const code = project && number !== null ? taskCode(project.slug, number) : null;
    await insertTask(em, {
      id,
      projectId: project?.id ?? null,
      number,
      code,
      title: input.title,
      description: input.description ?? null,
      kind: input.kind,
      priority: input.priority,
      status: INITIAL_TASK_STATUS,
      dueDate: input.due_date ?? null,
      assigneeUserId: assignee?.user.id ?? null,
      creatorUserId: principal.userId,
      parentTaskId: parent?.id ?? null,
      isDraft: input.as_draft,
      now,
    });
    await insertTaskPeople(
      em,
      'reviewers',
      id,
      reviewers.map((u) => u.id),
      now,
    );
    await insertTaskPeople(
      em,
      'cc',
      id,
      cc.map((u) => u.id),
      now,
    );
    if (!input.as_draft) {
      await insertStatusHistory(em, { taskId: id, from: null, to: INITIAL_TASK_STATUS, byUserId: principal.userId, commentId: null, now });
      if (assignee && assignee.user.id !== principal.userId) {
        addNotification(em, now, {
          userId: assignee.user.id,
          type: 'task',
          title: `Assigned to you: ${code} ${input.title}`,
          targetUrl: taskUrl(ctx.config, { id, code }),
          actorUserId: principal.userId,
          actorName: principal.userName,
          tags: [code!],
        });
      }
    }
    recordToolAudit(em, ctx, {
      tool: 'create_task',
      action: input.as_draft ? TASK_AUDIT.draftCreated : TASK_AUDIT.created,
      targetType: 'task',
      targetId: id,
      summary: {
        code,
        projectId: project?.id ?? null,
        kind: input.kind,
        priority: input.priority,
        assigneeUserId: assignee?.user.id ?? null,
        reviewerCount: reviewers.length,
        ccCount: cc.length,
        parentTaskId: parent?.id ?? null,
        draft: input.as_draft,
        hasDescription: input.description !== undefined,
      },
    });
    return createdTaskOutput(
      ctx.config,
      { id, code, priority: input.priority, isDraft: input.as_draft, status: INITIAL_TASK_STATUS },
      { assignee: assignee?.user ?? null, reviewers, cc },
    );
  },
});

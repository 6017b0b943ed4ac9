// How tasks are addressed and shown to agent tools: the `code` / `task_id` reference (with the
// deprecated `task_code` alias, SPEC Versioning 4), the output records and absolute URLs.
import { z } from 'zod';
import type { DomainConfig } from '../context.js';
import { projectUrl } from '../projects/project-urls.js';
import type { PersonRow, TaskListRow, TaskRow } from './tasks.repository.js';
import { normalizeTaskCode, TASK_CODE_PATTERN, TASK_KINDS, TASK_PRIORITIES, TASK_STATUSES } from './tasks.rules.js';

const code = z.string().trim().regex(TASK_CODE_PATTERN, { error: 'must be a task code such as PROJECT-12' });

/** `code` or `task_id`; `task_code` is the deprecated alias of `code`. */
export const TaskRefFields = {
  code: code.optional(),
  task_id: z.uuid({ error: 'must be a UUID' }).optional(),
  /** Deprecated alias of `code`. */
  task_code: code.optional(),
};

interface TaskRefInput {
  code?: string;
  task_id?: string;
  task_code?: string;
}

/** Exactly one address: `code` (or its alias) or `task_id`. Reported on the input's own fields. */
export function refineTaskRef(v: TaskRefInput, ctx: z.RefinementCtx): void {
  if (v.code !== undefined && v.task_code !== undefined && normalizeTaskCode(v.code) !== normalizeTaskCode(v.task_code)) {
    ctx.addIssue({
      code: 'custom',
      path: ['task_code'],
      message: 'task_code (deprecated) disagrees with code; send only code',
      params: { code: 'conflicting_alias' },
    });
  }
  const hasCode = v.code !== undefined || v.task_code !== undefined;
  if (hasCode && v.task_id !== undefined)
    ctx.addIssue({ code: 'custom', path: ['task_id'], message: 'give code or task_id, not both', params: { code: 'exclusive' } });
  if (!hasCode && v.task_id === undefined)
    ctx.addIssue({ code: 'custom', path: ['code'], message: 'code or task_id is required', params: { code: 'required' } });
}

export type TaskRef = { id: string } | { code: string };

export function taskRefOf(v: TaskRefInput): TaskRef {
  if (v.task_id !== undefined) return { id: v.task_id };
  return { code: normalizeTaskCode((v.code ?? v.task_code)!) };
}

export const taskUrl = (config: Pick<DomainConfig, 'publicBaseUrl'>, t: { code: string | null; id: string }): string =>
  `${config.publicBaseUrl}/tasks/${encodeURIComponent(t.code ?? t.id)}`;

export const PersonRef = z.object({ id: z.uuid(), email: z.string() });
export type PersonRef = z.infer<typeof PersonRef>;
export const personRef = (p: Pick<PersonRow, 'id' | 'email'>): PersonRef => ({ id: p.id, email: p.email });

export const TaskListItem = z.object({
  task_id: z.uuid(),
  code: z.string(),
  title: z.string(),
  kind: z.enum(TASK_KINDS),
  priority: z.enum(TASK_PRIORITIES),
  status: z.enum(TASK_STATUSES),
  project_slug: z.string(),
  assignee: PersonRef.nullable(),
  due_date: z.string().nullable(),
  parent_task_code: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  url: z.string(),
});
export type TaskListItem = z.infer<typeof TaskListItem>;

export const toTaskListItem = (config: DomainConfig, t: TaskListRow): TaskListItem => ({
  task_id: t.id,
  code: t.code!,
  title: t.title,
  kind: t.kind,
  priority: t.priority,
  status: t.status,
  project_slug: t.projectSlug,
  assignee: t.assigneeUserId && t.assigneeEmail ? { id: t.assigneeUserId, email: t.assigneeEmail } : null,
  due_date: t.dueDate,
  parent_task_code: t.parentCode,
  created_at: t.createdAt,
  updated_at: t.updatedAt,
  url: taskUrl(config, t),
});

export const StatusHistoryEntry = z.object({
  /** null for the first entry (creation or publication). */
  from: z.enum(TASK_STATUSES).nullable(),
  to: z.enum(TASK_STATUSES),
  changed_by: PersonRef,
  /** The progress note written with the change, if any. */
  comment_id: z.uuid().nullable(),
  at: z.string(),
});

export const TaskComment = z.object({ id: z.uuid(), author: PersonRef, body: z.string(), created_at: z.string() });

export const TaskDetail = z.object({
  task_id: z.uuid(),
  /** null while the task is a draft. */
  code: z.string().nullable(),
  title: z.string(),
  description: z.string().nullable(),
  kind: z.enum(TASK_KINDS),
  priority: z.enum(TASK_PRIORITIES),
  status: z.enum(TASK_STATUSES),
  draft: z.boolean(),
  project: z.object({ slug: z.string(), name: z.string(), url: z.string() }).nullable(),
  parent_task_code: z.string().nullable(),
  due_date: z.string().nullable(),
  creator: PersonRef,
  assignee: PersonRef.nullable(),
  /** The assignee as a list (one task has at most one assignee today). */
  assignees: z.array(PersonRef.extend({ name: z.string() })),
  reviewers: z.array(PersonRef),
  cc: z.array(PersonRef),
  status_history: z.array(StatusHistoryEntry),
  /** The newest comments (at most TASK_LIMITS.commentsShown), oldest first; comment_count counts all. */
  comments: z.array(TaskComment),
  comment_count: z.number().int().min(0),
  created_at: z.string(),
  updated_at: z.string(),
  published_at: z.string().nullable(),
  url: z.string(),
});
export type TaskDetail = z.infer<typeof TaskDetail>;

export const projectRefOf = (config: DomainConfig, p: { slug: string; name: string } | null) =>
  p ? { slug: p.slug, name: p.name, url: projectUrl(config, p.slug) } : null;

export type { TaskRow };

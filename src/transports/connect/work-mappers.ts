// fluxdesk.work.v1 <-> the agent tools' snake_case input and output. A request becomes exactly the
// object the MCP tool passes (unset optionals absent), so the one validator sees the same input.
import { timestampFromDate, type Timestamp } from '@bufbuild/protobuf/wkt';
import { Code, ConnectError } from '@connectrpc/connect';
import { ErrorInfoSchema, ValidationErrorDetailSchema } from '../../../gen/fluxdesk/common/v1/errors_pb.js';
import type { ListProjectsResult } from '../../domain/projects/list-projects.js';
import type { TaskDetail, TaskListItem } from '../../domain/tasks/task.view.js';
import type { CreatedTask } from '../../domain/tasks/task-placement.js';
import type { DocListItem } from '../../domain/docs/docs.schemas.js';
import type { FeedbackDetail, FeedbackListItem } from '../../domain/feedback/feedback.view.js';
import type { CreateFeedbackResult } from '../../domain/feedback/create-feedback.js';
import type { ListProjectRepositoriesResult } from '../../domain/repositories/list-project-repositories.js';
import type { ListProjectRepositoryCommitsResult } from '../../domain/repositories/list-project-repository-commits.js';
import type { BindProjectRepositoryResult } from '../../domain/repositories/bind-project-repository.js';
import type { SearchResult } from '../../domain/search/search.js';
import { defined } from './mappers.js';

const ts = (iso: string): Timestamp => timestampFromDate(new Date(iso));
const tsOrUnset = (iso: string | null | undefined): Timestamp | undefined => (iso ? ts(iso) : undefined);
const orUnset = <T>(v: T | null): T | undefined => (v === null ? undefined : v);
/** An empty repeated field is "not given", like an absent JSON key (required lists then say so). */
const listOrUnset = (v: readonly string[]): string[] | undefined => (v.length > 0 ? [...v] : undefined);

// ---- projects -------------------------------------------------------------------------------

export const projectsToProto = (r: ListProjectsResult) => ({ items: r.items.map((p) => ({ ...p, role: orUnset(p.role) })) });

// ---- tasks ----------------------------------------------------------------------------------

export function taskListItemToProto(t: TaskListItem) {
  return {
    taskId: t.task_id,
    code: t.code,
    title: t.title,
    kind: t.kind,
    priority: t.priority,
    status: t.status,
    projectSlug: t.project_slug,
    assignee: orUnset(t.assignee),
    dueDate: orUnset(t.due_date),
    parentTaskCode: orUnset(t.parent_task_code),
    createdAt: ts(t.created_at),
    updatedAt: ts(t.updated_at),
    url: t.url,
  };
}

export function taskDetailToProto(t: TaskDetail) {
  return {
    taskId: t.task_id,
    code: orUnset(t.code),
    title: t.title,
    description: orUnset(t.description),
    kind: t.kind,
    priority: t.priority,
    status: t.status,
    draft: t.draft,
    project: orUnset(t.project),
    parentTaskCode: orUnset(t.parent_task_code),
    dueDate: orUnset(t.due_date),
    creator: t.creator,
    assignee: orUnset(t.assignee),
    assignees: t.assignees,
    reviewers: t.reviewers,
    cc: t.cc,
    statusHistory: t.status_history.map((h) => ({ from: orUnset(h.from), to: h.to, changedBy: h.changed_by, commentId: orUnset(h.comment_id), at: ts(h.at) })),
    comments: t.comments.map((c) => ({ id: c.id, author: c.author, body: c.body, createdAt: ts(c.created_at) })),
    commentCount: t.comment_count,
    createdAt: ts(t.created_at),
    updatedAt: ts(t.updated_at),
    publishedAt: tsOrUnset(t.published_at),
    url: t.url,
  };
}

export const createdTaskToProto = (t: CreatedTask) => ({ ...t, taskId: t.task_id, code: orUnset(t.code), assignee: orUnset(t.assignee) });

export function createTaskToJson(r: {
  title: string;
  projectSlug?: string;
  description?: string;
  parentTaskCode?: string;
  assigneeEmail?: string;
  assigneeUserId?: string;
  reviewerUserIds: string[];
  ccEmails: string[];
  ccUserIds: string[];
  priority?: string;
  dueDate?: string;
  kind?: string;
  asDraft?: boolean;
}): Record<string, unknown> {
  return defined({
    title: r.title,
    project_slug: r.projectSlug,
    description: r.description,
    parent_task_code: r.parentTaskCode,
    assignee_email: r.assigneeEmail,
    assignee_user_id: r.assigneeUserId,
    reviewer_user_ids: listOrUnset(r.reviewerUserIds),
    cc_emails: listOrUnset(r.ccEmails),
    cc_user_ids: listOrUnset(r.ccUserIds),
    priority: r.priority,
    due_date: r.dueDate,
    kind: r.kind,
    as_draft: r.asDraft,
  });
}

export const taskRefToJson = (r: { code?: string; taskId?: string; taskCode?: string }) => defined({ code: r.code, task_id: r.taskId, task_code: r.taskCode });

// ---- docs -----------------------------------------------------------------------------------

export const docListItemToProto = (d: DocListItem) => ({ ...d, updatedAt: ts(d.updated_at), spaceSlug: d.space_slug, projectSlug: d.project_slug });

export const pageAddressToJson = (r: { pageId?: string; spaceSlug?: string; pageSlug?: string }) =>
  defined({ page_id: r.pageId, space_slug: r.spaceSlug, page_slug: r.pageSlug });

export const docFiltersToJson = (r: { projectSlug?: string; spaceSlug?: string; status?: string; kind?: string; limit?: number }) =>
  defined({ project_slug: r.projectSlug, space_slug: r.spaceSlug, status: r.status, kind: r.kind, limit: r.limit });

/** update_doc_draft / update_doc edits; an empty parent_page_id is `null` (move to the top of the space). */
export function pageEditsToJson(r: {
  title?: string;
  body?: string;
  kind?: string;
  parentPageId?: string;
  pinned?: boolean;
  changeSummary?: string;
}): Record<string, unknown> {
  return defined({
    title: r.title,
    body: r.body,
    kind: r.kind,
    parent_page_id: r.parentPageId === '' ? null : r.parentPageId,
    pinned: r.pinned,
    change_summary: r.changeSummary,
  });
}

/** PageRef-shaped tool outputs (`page_id`, `space_slug`, ... plus extras) in proto JSON names. */
export function pageResultToProto<T extends { page_id: string; space_slug: string; project_slug: string }>(r: T) {
  return { ...r, pageId: r.page_id, spaceSlug: r.space_slug, projectSlug: r.project_slug };
}

export { listOrUnset, ts };

// ---- errors ---------------------------------------------------------------------------------

/**
 * A few tools take camelCase keys (`taskId`, `availabilityStatus`, `mainTaskIds`); their proto
 * fields are snake_case. Violations and ErrorInfo `field` name the proto field, so a client can
 * point at what it sent. `renames` maps the tool's key to the proto field name.
 */
export function renameErrorFields(err: unknown, renames: Record<string, string>): unknown {
  if (!(err instanceof ConnectError)) return err;
  const rename = (path: string) => {
    const [head, ...rest] = path.split('.');
    return head !== undefined && renames[head] ? [renames[head], ...rest].join('.') : path;
  };
  const info = err.findDetails(ErrorInfoSchema)[0];
  const violations = err.findDetails(ValidationErrorDetailSchema)[0];
  const details: ConstructorParameters<typeof ConnectError>[3] = [];
  if (info)
    details.push({
      desc: ErrorInfoSchema,
      value: { ...info, metadata: { ...info.metadata, ...(info.metadata.field ? { field: rename(info.metadata.field) } : {}) } },
    });
  if (violations)
    details.push({ desc: ValidationErrorDetailSchema, value: { violations: violations.violations.map((v) => ({ ...v, field: rename(v.field) })) } });
  return new ConnectError(err.rawMessage, err.code ?? Code.Unknown, err.metadata, details, err.cause);
}

// ---- feedback, repositories, search ---------------------------------------------------------

export function feedbackItemToProto(f: FeedbackListItem) {
  return {
    feedbackId: f.feedback_id,
    title: f.title,
    status: f.status,
    projectSlug: orUnset(f.project_slug),
    triage: f.triage,
    isAnonymous: f.is_anonymous,
    author: orUnset(f.author),
    isMine: f.is_mine,
    commentCount: f.comment_count,
    createdAt: ts(f.created_at),
    updatedAt: ts(f.updated_at),
    deleteAfter: tsOrUnset(f.delete_after),
    url: f.url,
  };
}

export function feedbackDetailToProto(f: FeedbackDetail) {
  return {
    feedback: feedbackItemToProto(f),
    body: f.body,
    project: orUnset(f.project),
    requestedProjectSlug: orUnset(f.requested_project_slug),
    comments: f.comments.map((c) => ({
      commentId: c.comment_id,
      body: c.body,
      author: orUnset(c.author),
      byFeedbackAuthor: c.by_feedback_author,
      createdAt: ts(c.created_at),
    })),
  };
}

export const createdFeedbackToProto = (f: CreateFeedbackResult) => ({
  feedbackId: f.feedback_id,
  url: f.url,
  projectSlug: orUnset(f.project_slug),
  triage: f.triage,
  triageReason: orUnset(f.triage_reason),
  isAnonymous: f.is_anonymous,
  status: f.status,
  deleteAfter: tsOrUnset(f.delete_after),
});

export const repositoryToProto = (r: ListProjectRepositoriesResult['repositories'][number]) => ({
  id: r.id,
  provider: r.provider,
  fullName: r.full_name,
  webUrl: r.web_url,
  sshUrl: r.ssh_url,
  defaultBranch: r.default_branch,
  isMonitored: r.is_monitored,
  archived: r.archived,
});

export const commitsToProto = (r: ListProjectRepositoryCommitsResult) => ({
  projectSlug: r.project_slug,
  count: r.count,
  branchFilter: orUnset(r.branch_filter),
  commits: r.commits.map((c) => ({
    repoFullName: c.repo_full_name,
    provider: c.provider,
    shortSha: c.short_sha,
    title: c.title,
    url: orUnset(c.url),
    actor: c.actor,
    occurredAt: ts(c.occurred_at),
  })),
});

export const boundRepositoryToProto = (r: BindProjectRepositoryResult) => ({
  repoId: r.repo_id,
  projectSlug: r.project_slug,
  provider: r.provider,
  webUrl: r.web_url,
  fullName: r.full_name,
  defaultBranch: r.default_branch,
  created: r.created,
  restored: r.restored,
  sshUrl: r.ssh_url,
  webhookUrl: r.webhook_url,
  webhookSecret: r.webhook_secret,
});

export function searchRequestToJson(r: {
  query: string;
  types: string[];
  filters?: { projectSlug?: string; authorEmail?: string; since?: string; status?: string };
  limit?: number;
}): Record<string, unknown> {
  const f = r.filters;
  return defined({
    query: r.query,
    types: listOrUnset(r.types),
    filters: f ? defined({ project_slug: f.projectSlug, author_email: f.authorEmail, since: f.since, status: f.status }) : undefined,
    limit: r.limit,
  });
}

export const searchResultToProto = (r: SearchResult) => ({
  query: r.query,
  count: r.count,
  hits: r.hits.map((h) => ({
    type: h.type,
    id: h.id,
    title: h.title,
    snippet: h.snippet,
    matchedField: h.matched_field,
    url: h.url,
    score: h.score,
    createdAt: ts(h.createdAt),
  })),
});

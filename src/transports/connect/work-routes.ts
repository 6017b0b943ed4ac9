// fluxdesk.work.v1: ProjectService, TaskService, DocService, FeedbackService, RepositoryService and
// SearchService. Each RPC maps the proto request to
// the input the MCP tool of the same name passes, runs that same operation (same scope,
// visibility and audit), and maps the tool output back. Map -> call -> map, no rules here.
import type { ConnectRouter, HandlerContext } from '@connectrpc/connect';
import { ProjectService } from '../../../gen/fluxdesk/work/v1/projects_pb.js';
import { TaskService } from '../../../gen/fluxdesk/work/v1/tasks_pb.js';
import { DocService } from '../../../gen/fluxdesk/work/v1/docs_pb.js';
import { FeedbackService } from '../../../gen/fluxdesk/work/v1/feedback_pb.js';
import { RepositoryService } from '../../../gen/fluxdesk/work/v1/repositories_pb.js';
import { SearchService } from '../../../gen/fluxdesk/work/v1/search_pb.js';
import type { AppDeps } from '../../app/deps.js';
import type { Operation } from '../../domain/context.js';
import { listProjects } from '../../domain/projects/list-projects.js';
import { manageRemoveProjectMember } from '../../domain/projects/remove-project-member-by-agent.js';
import { manageSetProjectMember } from '../../domain/projects/set-project-member-by-agent.js';
import { listTasks } from '../../domain/tasks/list-tasks.js';
import { getTask } from '../../domain/tasks/get-task.js';
import { createTask } from '../../domain/tasks/create-task.js';
import { publishTaskDraft } from '../../domain/tasks/publish-task-draft.js';
import { claimTask } from '../../domain/tasks/claim-task.js';
import { updateTaskStatus } from '../../domain/tasks/update-task-status.js';
import { addTaskComment } from '../../domain/tasks/add-task-comment.js';
import { getOwnerIntakeTemplates } from '../../domain/tasks/get-owner-intake-templates.js';
import { submitDailyUpdate } from '../../domain/daily-updates/submit-daily-update.js';
import { listDocs } from '../../domain/docs/list-docs.js';
import { getDoc } from '../../domain/docs/get-doc.js';
import { searchDocs } from '../../domain/docs/search-docs.js';
import { listDocDrafts } from '../../domain/docs/list-doc-drafts.js';
import { listTags } from '../../domain/docs/list-tags.js';
import { searchByTags } from '../../domain/docs/search-by-tags.js';
import { createDocDraft } from '../../domain/docs/create-doc-draft.js';
import { updateDocDraft } from '../../domain/docs/update-doc-draft.js';
import { publishDocDraft } from '../../domain/docs/publish-doc-draft.js';
import { archiveDoc } from '../../domain/docs/archive-doc.js';
import { restoreDoc } from '../../domain/docs/restore-doc.js';
import { updateDoc } from '../../domain/docs/update-doc.js';
import { tagDoc } from '../../domain/docs/tag-doc.js';
import { untagDoc } from '../../domain/docs/untag-doc.js';
import { listFeedback } from '../../domain/feedback/list-feedback.js';
import { getFeedback } from '../../domain/feedback/get-feedback.js';
import { createFeedback } from '../../domain/feedback/create-feedback.js';
import { addFeedbackComment } from '../../domain/feedback/add-feedback-comment.js';
import { listProjectRepositoriesOp } from '../../domain/repositories/list-project-repositories.js';
import { listProjectRepositoryCommitsOp } from '../../domain/repositories/list-project-repository-commits.js';
import { bindProjectRepositoryOp } from '../../domain/repositories/bind-project-repository.js';
import { unbindProjectRepositoryOp } from '../../domain/repositories/unbind-project-repository.js';
import { search } from '../../domain/search/search.js';
import { defined } from './mappers.js';
import { call } from './call.js';
import {
  boundRepositoryToProto,
  commitsToProto,
  createdFeedbackToProto,
  feedbackDetailToProto,
  feedbackItemToProto,
  repositoryToProto,
  searchRequestToJson,
  searchResultToProto,
  createdTaskToProto,
  createTaskToJson,
  docFiltersToJson,
  docListItemToProto,
  listOrUnset,
  pageAddressToJson,
  pageEditsToJson,
  pageResultToProto,
  projectsToProto,
  renameErrorFields,
  taskDetailToProto,
  taskListItemToProto,
  taskRefToJson,
  ts,
} from './work-mappers.js';

/** `call`, with the tool's camelCase input keys reported under their proto field names. */
async function callRenamed<I, O>(deps: AppDeps, op: Operation<I, O, any>, input: unknown, ctx: HandlerContext, renames: Record<string, string>): Promise<O> {
  try {
    return await call(deps, op, input, ctx);
  } catch (err) {
    throw renameErrorFields(err, renames);
  }
}

/** Registers the services; returns their type names (grpc.health.v1 reports them SERVING). */
export function registerWorkRoutes(router: ConnectRouter, deps: AppDeps): string[] {
  router.service(ProjectService, {
    async listProjects(_req, ctx) {
      return projectsToProto(await call(deps, listProjects, {}, ctx));
    },
    async setProjectMember(req, ctx) {
      const out = await call(deps, manageSetProjectMember, { slug: req.slug, email: req.email, role: req.role }, ctx);
      return { projectId: out.projectId, userId: out.userId, role: out.role ?? '', changed: out.changed };
    },
    async removeProjectMember(req, ctx) {
      const out = await call(deps, manageRemoveProjectMember, { slug: req.slug, email: req.email }, ctx);
      return { projectId: out.projectId, userId: out.userId, changed: out.changed };
    },
  });

  router.service(TaskService, {
    async listTasks(req, ctx) {
      const out = await call(
        deps,
        listTasks,
        defined({ assignee: req.assignee, project: req.project, status: req.status, priority: req.priority, limit: req.limit }),
        ctx,
      );
      return { items: out.items.map(taskListItemToProto) };
    },
    async getTask(req, ctx) {
      return { task: taskDetailToProto(await call(deps, getTask, taskRefToJson(req), ctx)) };
    },
    async createTask(req, ctx) {
      return createdTaskToProto(await call(deps, createTask, createTaskToJson(req), ctx));
    },
    async publishTaskDraft(req, ctx) {
      return createdTaskToProto(await call(deps, publishTaskDraft, defined({ task_id: req.taskId, project_slug: req.projectSlug }), ctx));
    },
    async claimTask(req, ctx) {
      const out = await call(deps, claimTask, taskRefToJson(req), ctx);
      return { taskId: out.task_id, code: out.code, status: out.status, assignee: out.assignee, url: out.url };
    },
    async updateTaskStatus(req, ctx) {
      const input = defined({ ...taskRefToJson(req), status: req.status, new_status: req.newStatus, progress_note: req.progressNote });
      const out = await call(deps, updateTaskStatus, input, ctx);
      return { taskId: out.task_id, code: out.code, status: out.status, newStatus: out.new_status, commentId: out.comment_id ?? undefined };
    },
    async addTaskComment(req, ctx) {
      const out = await callRenamed(deps, addTaskComment, { taskId: req.taskId, body: req.body }, ctx, { taskId: 'task_id' });
      return { commentId: out.commentId };
    },
    async getOwnerIntakeTemplates(req, ctx) {
      const out = await call(deps, getOwnerIntakeTemplates, defined({ owner_email: req.ownerEmail, owner_user_id: req.ownerUserId }), ctx);
      return {
        owner: out.owner,
        description: out.description,
        descriptionSource: out.description_source,
        checklists: out.checklists,
        checklistSource: out.checklist_source,
      };
    },
    async submitDailyUpdate(req, ctx) {
      const input = defined({
        availabilityStatus: req.availabilityStatus,
        mainTaskIds: [...req.mainTaskIds],
        contactWindow: req.contactWindow,
        blockers: req.blockers,
        note: req.note,
      });
      return callRenamed(deps, submitDailyUpdate, input, ctx, {
        availabilityStatus: 'availability_status',
        mainTaskIds: 'main_task_ids',
        contactWindow: 'contact_window',
      });
    },
  });

  router.service(DocService, {
    async listDocs(req, ctx) {
      const out = await call(deps, listDocs, docFiltersToJson(req), ctx);
      return { count: out.count, docs: out.docs.map(docListItemToProto) };
    },
    async getDoc(req, ctx) {
      const d = await call(deps, getDoc, pageAddressToJson(req), ctx);
      return {
        ...d,
        spaceSlug: d.space_slug,
        projectSlug: d.project_slug,
        updatedAt: ts(d.updated_at),
        publishedAt: d.published_at ? ts(d.published_at) : undefined,
      };
    },
    async searchDocs(req, ctx) {
      const out = await call(deps, searchDocs, { query: req.query, ...docFiltersToJson(req) }, ctx);
      return {
        query: out.query,
        count: out.count,
        hits: out.hits.map((h) => ({ ...h, spaceSlug: h.space_slug, projectSlug: h.project_slug, matchedField: h.matched_field })),
      };
    },
    async listDocDrafts(req, ctx) {
      const out = await call(deps, listDocDrafts, defined({ project_slug: req.projectSlug, space_slug: req.spaceSlug, limit: req.limit }), ctx);
      return { count: out.count, drafts: out.drafts.map((d) => ({ ...pageResultToProto(d), authorName: d.author_name, updatedAt: ts(d.updated_at) })) };
    },
    async listTags(req, ctx) {
      return call(deps, listTags, defined({ project_slug: req.projectSlug, space_slug: req.spaceSlug, prefix: req.prefix, limit: req.limit }), ctx);
    },
    async searchByTags(req, ctx) {
      const out = await call(deps, searchByTags, defined({ tags: listOrUnset(req.tags), match: req.match, ...docFiltersToJson(req) }), ctx);
      return { tags: out.tags, match: out.match, count: out.count, docs: out.docs.map(({ tags, ...d }) => ({ doc: docListItemToProto(d), tags })) };
    },
    async createDocDraft(req, ctx) {
      const input = defined({
        project_slug: req.projectSlug,
        space_slug: req.spaceSlug,
        title: req.title,
        slug: req.slug,
        body: req.body,
        kind: req.kind,
        parent_page_id: req.parentPageId,
        pinned: req.pinned,
        change_summary: req.changeSummary,
      });
      return pageResultToProto(await call(deps, createDocDraft, input, ctx));
    },
    async updateDocDraft(req, ctx) {
      return pageResultToProto(await call(deps, updateDocDraft, { ...pageAddressToJson(req), ...pageEditsToJson(req) }, ctx));
    },
    async publishDocDraft(req, ctx) {
      const out = await call(deps, publishDocDraft, pageAddressToJson(req), ctx);
      return { ...pageResultToProto(out), publishedAt: ts(out.published_at) };
    },
    async archiveDoc(req, ctx) {
      const out = await call(deps, archiveDoc, pageAddressToJson(req), ctx);
      return { ...pageResultToProto(out), archivedCount: out.archived_count };
    },
    async restoreDoc(req, ctx) {
      const out = await call(deps, restoreDoc, pageAddressToJson(req), ctx);
      return { ...pageResultToProto(out), restoredCount: out.restored_count };
    },
    async updateDoc(req, ctx) {
      const out = await call(deps, updateDoc, { ...pageAddressToJson(req), ...pageEditsToJson(req) }, ctx);
      return { ...pageResultToProto(out), updatedAt: ts(out.updated_at) };
    },
    async tagDoc(req, ctx) {
      return pageResultToProto(await call(deps, tagDoc, defined({ ...pageAddressToJson(req), tags: listOrUnset(req.tags), mode: req.mode }), ctx));
    },
    async untagDoc(req, ctx) {
      return pageResultToProto(await call(deps, untagDoc, defined({ ...pageAddressToJson(req), tags: listOrUnset(req.tags), remove_all: req.removeAll }), ctx));
    },
  });

  router.service(FeedbackService, {
    async listFeedback(req, ctx) {
      const out = await call(
        deps,
        listFeedback,
        defined({ project_slug: req.projectSlug, triage: req.triage, mine: req.mine, status: req.status, limit: req.limit }),
        ctx,
      );
      return { count: out.count, items: out.items.map(feedbackItemToProto) };
    },
    async getFeedback(req, ctx) {
      return feedbackDetailToProto(await call(deps, getFeedback, { feedback_id: req.feedbackId }, ctx));
    },
    async createFeedback(req, ctx) {
      const input = defined({
        title: req.title,
        body: req.body,
        project_slug: req.projectSlug,
        is_anonymous: req.isAnonymous,
        auto_delete_after: req.autoDeleteAfter,
      });
      return createdFeedbackToProto(await call(deps, createFeedback, input, ctx));
    },
    async addFeedbackComment(req, ctx) {
      const input = defined({ feedbackId: req.feedbackId, body: req.body, client_message_id: req.clientMessageId });
      const out = await callRenamed(deps, addFeedbackComment, input, ctx, { feedbackId: 'feedback_id' });
      return { commentId: out.commentId, deduplicated: out.deduplicated };
    },
  });

  router.service(RepositoryService, {
    async listProjectRepositories(req, ctx) {
      const out = await call(deps, listProjectRepositoriesOp, { project_slug: req.projectSlug }, ctx);
      return { projectSlug: out.project_slug, count: out.count, repositories: out.repositories.map(repositoryToProto) };
    },
    async listProjectRepositoryCommits(req, ctx) {
      return commitsToProto(
        await call(
          deps,
          listProjectRepositoryCommitsOp,
          defined({ project_slug: req.projectSlug, repo_id: req.repoId, branch: req.branch, limit: req.limit }),
          ctx,
        ),
      );
    },
    async bindProjectRepository(req, ctx) {
      const input = defined({
        project_slug: req.projectSlug,
        provider: req.provider,
        repo_url: req.repoUrl,
        ssh_url: req.sshUrl,
        default_branch: req.defaultBranch,
      });
      return boundRepositoryToProto(await call(deps, bindProjectRepositoryOp, input, ctx));
    },
    async unbindProjectRepository(req, ctx) {
      const out = await call(deps, unbindProjectRepositoryOp, { project_slug: req.projectSlug, repo_url: req.repoUrl }, ctx);
      return { repoId: out.repo_id, projectSlug: out.project_slug, archived: out.archived };
    },
  });

  router.service(SearchService, {
    async search(req, ctx) {
      return searchResultToProto(await call(deps, search, searchRequestToJson(req), ctx));
    },
  });

  return [ProjectService.typeName, TaskService.typeName, DocService.typeName, FeedbackService.typeName, RepositoryService.typeName, SearchService.typeName];
}

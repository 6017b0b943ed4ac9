// How feedback is shown to agent tools: list items, the full record with comments, and the
// anonymity rule applied to every author field (feedback.rules.ts showsAuthor).
import { z } from 'zod';
import type { DomainConfig } from '../context.js';
import { projectUrl } from '../projects/project-urls.js';
import type { CommentRow, FeedbackRow } from './feedback.repository.js';
import { FEEDBACK_STATUSES, feedbackUrl, showsAuthor, showsCommentAuthor } from './feedback.rules.js';

export const FeedbackPerson = z.object({ id: z.uuid(), email: z.string(), name: z.string() });
export type FeedbackPerson = z.infer<typeof FeedbackPerson>;

export const FeedbackProject = z.object({ slug: z.string(), name: z.string(), url: z.string() });

export const FeedbackListItem = z.object({
  feedback_id: z.uuid(),
  title: z.string(),
  status: z.enum(FEEDBACK_STATUSES),
  /** null in the triage pool. */
  project_slug: z.string().nullable(),
  triage: z.boolean(),
  is_anonymous: z.boolean(),
  /** null when anonymous (except for its author). */
  author: FeedbackPerson.nullable(),
  is_mine: z.boolean(),
  comment_count: z.number().int(),
  created_at: z.string(),
  updated_at: z.string(),
  delete_after: z.string().nullable(),
  url: z.string(),
});
export type FeedbackListItem = z.infer<typeof FeedbackListItem>;

export const FeedbackComment = z.object({
  comment_id: z.uuid(),
  body: z.string(),
  /** null for the anonymous feedback's own author (shown to everyone but that author). */
  author: FeedbackPerson.nullable(),
  by_feedback_author: z.boolean(),
  created_at: z.string(),
});

export const FeedbackDetail = FeedbackListItem.extend({
  body: z.string(),
  project: FeedbackProject.nullable(),
  /** A project_slug given at creation that did not resolve (why it is in the triage pool). */
  requested_project_slug: z.string().nullable(),
  comments: z.array(FeedbackComment),
});
export type FeedbackDetail = z.infer<typeof FeedbackDetail>;

const person = (id: string, email: string, name: string): FeedbackPerson => ({ id, email, name });

export function toFeedbackListItem(config: DomainConfig, viewerId: string, f: FeedbackRow): FeedbackListItem {
  return {
    feedback_id: f.id,
    title: f.title,
    status: f.status,
    project_slug: f.projectSlug,
    triage: f.triage,
    is_anonymous: f.isAnonymous,
    author: showsAuthor(viewerId, f) ? person(f.authorUserId, f.authorEmail, f.authorName) : null,
    is_mine: f.authorUserId === viewerId,
    comment_count: f.commentCount,
    created_at: f.createdAt,
    updated_at: f.updatedAt,
    delete_after: f.deleteAfter,
    url: feedbackUrl(config, f.id),
  };
}

export function toFeedbackDetail(config: DomainConfig, viewerId: string, f: FeedbackRow, comments: readonly CommentRow[]): FeedbackDetail {
  return {
    ...toFeedbackListItem(config, viewerId, f),
    body: f.body,
    project: f.projectSlug && f.projectName ? { slug: f.projectSlug, name: f.projectName, url: projectUrl(config, f.projectSlug) } : null,
    requested_project_slug: f.requestedProjectSlug,
    comments: comments.map((c) => ({
      comment_id: c.id,
      body: c.body,
      author: showsCommentAuthor(viewerId, f, c.authorUserId) ? person(c.authorUserId, c.authorEmail, c.authorName) : null,
      by_feedback_author: c.authorUserId === f.authorUserId,
      created_at: c.createdAt,
    })),
  };
}

// Pure feedback rules (SPEC C create_feedback, add_feedback_comment, list_feedback, get_feedback;
// Limits "Agent tool bounds": feedback body 8000): where feedback goes (a project or the triage
// pool), auto-delete durations, who sees it and anonymity. The decisions the spec leaves open are
// this service's and are published in agent protocol 14.
import type { DomainConfig } from '../context.js';
import { canSeeAllProjects } from '../projects/project-roles.rules.js';
import { FEEDBACK_LIMITS } from './feedback.limits.js';

/** Only `open` is written today; the others are the vocabulary for triage work to come. */
export const FEEDBACK_STATUSES = ['open', 'acknowledged', 'resolved', 'closed'] as const;
export type FeedbackStatus = (typeof FEEDBACK_STATUSES)[number];
export const INITIAL_FEEDBACK_STATUS: FeedbackStatus = 'open';

export type TriageReason = 'no_project' | 'unknown_project';

/** Where new feedback goes: the resolved project, or the triage pool (and why). */
export function placeFeedback(
  requestedSlug: string | null,
  visibleProjectId: string | null,
): { projectId: string | null; triage: boolean; reason: TriageReason | null } {
  if (!requestedSlug) return { projectId: null, triage: true, reason: 'no_project' };
  if (!visibleProjectId) return { projectId: null, triage: true, reason: 'unknown_project' };
  return { projectId: visibleProjectId, triage: false, reason: null };
}

// ---- auto_delete_after: an ISO-8601 duration in weeks, days and/or hours ----

export const AUTO_DELETE_MIN_HOURS = FEEDBACK_LIMITS.autoDeleteMinHours;
export const AUTO_DELETE_MAX_HOURS = FEEDBACK_LIMITS.autoDeleteMaxDays * 24;
/** `P30D`, `P2W`, `PT12H`, `P1DT12H` (no months or years: their length varies). */
const DURATION = /^P(?:(\d{1,4})W|(?:(\d{1,4})D)?(?:T(\d{1,5})H)?)$/i;

/** Hours of an ISO-8601 duration, or an error text (format or bounds). */
export function parseAutoDeleteAfter(s: string): { hours: number } | { error: string } {
  const m = DURATION.exec(s.trim());
  if (!m || (m[1] === undefined && m[2] === undefined && m[3] === undefined)) {
    return { error: 'must be an ISO-8601 duration in weeks, days or hours, e.g. P30D, P2W, PT12H, P1DT12H' };
  }
  const hours = Number(m[1] ?? 0) * 7 * 24 + Number(m[2] ?? 0) * 24 + Number(m[3] ?? 0);
  if (hours < AUTO_DELETE_MIN_HOURS || hours > AUTO_DELETE_MAX_HOURS)
    return { error: `must be between PT${AUTO_DELETE_MIN_HOURS}H and P${FEEDBACK_LIMITS.autoDeleteMaxDays}D` };
  return { hours };
}

export const deleteAfterFrom = (createdAt: Date, hours: number): Date => new Date(createdAt.getTime() + hours * 3_600_000);

// ---- Visibility (the SQL in feedback.repository.ts applies the same rules) ----

export interface FeedbackFacts {
  authorUserId: string;
  triage: boolean;
  projectId: string | null;
  deleteAfter: Date | null;
}

/**
 * Can `viewer` see this feedback? `memberOfActiveProject`: the viewer owns or is a member of the
 * feedback's project and that project is not archived.
 */
export function canSeeFeedback(viewer: { userId: string; userRole: string }, f: FeedbackFacts, memberOfActiveProject: boolean, now: Date): boolean {
  if (f.deleteAfter && f.deleteAfter.getTime() <= now.getTime()) return false;
  if (f.authorUserId === viewer.userId) return true;
  if (canSeeAllProjects(viewer.userRole)) return true;
  return !f.triage && f.projectId !== null && memberOfActiveProject;
}

/** The author is shown unless the feedback is anonymous; its author always sees themselves. */
export const showsAuthor = (viewerId: string, f: { authorUserId: string; isAnonymous: boolean }): boolean => !f.isAnonymous || f.authorUserId === viewerId;

/** A comment's author, hidden when it is the anonymous feedback's own author and the viewer is someone else. */
export const showsCommentAuthor = (viewerId: string, f: { authorUserId: string; isAnonymous: boolean }, commentAuthorId: string): boolean =>
  !(f.isAnonymous && commentAuthorId === f.authorUserId && viewerId !== f.authorUserId);

export const feedbackUrl = (config: Pick<DomainConfig, 'publicBaseUrl'>, id: string): string => `${config.publicBaseUrl}/feedback/${encodeURIComponent(id)}`;

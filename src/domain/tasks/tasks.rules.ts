// Pure task rules: vocabularies, codes, the status transition table, parent chains and the
// reviewer/cc filter. SPEC "States and transitions / Tasks" gives only two rules
// (update_task_status is for the assignee, an admin, or a reviewer for review -> done or
// in_progress; claim_task takes an unassigned task of kind issue); the table below is this
// service's decision and is published in the agent protocol text (TASK_TRANSITIONS).
import { TASK_LIMITS } from './tasks.limits.js';
import { PROJECT_LIMITS } from '../projects/projects.limits.js';

export const TASK_STATUSES = ['todo', 'in_progress', 'review', 'done', 'cancelled'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];
export const INITIAL_TASK_STATUS: TaskStatus = 'todo';

/**
 * `issue`: a reported problem or request anyone in the project may pick up (claim_task);
 * `task`: planned work, usually assigned (the default); `bug`: a defect in something shipped;
 * `chore`: maintenance without user-visible change.
 */
export const TASK_KINDS = ['issue', 'task', 'bug', 'chore'] as const;
export type TaskKind = (typeof TASK_KINDS)[number];
export const DEFAULT_TASK_KIND: TaskKind = 'task';

export const TASK_PRIORITIES = ['low', 'medium', 'high', 'urgent'] as const;
export type TaskPriority = (typeof TASK_PRIORITIES)[number];
export const DEFAULT_TASK_PRIORITY: TaskPriority = 'medium';

/** A task tree is at most this many levels deep (a root task is level 1). */
export const MAX_TASK_DEPTH = TASK_LIMITS.depthMax;

/**
 * Who may take a transition:
 *  - `assignee`: the assignee or an admin;
 *  - `reviewer`: the assignee, an admin, or one of the task's reviewers;
 *  - `admin`: an admin only (admin or super admin).
 */
export type TransitionActor = 'assignee' | 'reviewer' | 'admin';

export interface TaskTransition {
  from: TaskStatus;
  to: TaskStatus;
  who: TransitionActor;
}

/** The explicit transition table. Anything not listed is refused. */
export const TASK_TRANSITIONS: readonly TaskTransition[] = [
  { from: 'todo', to: 'in_progress', who: 'assignee' },
  { from: 'todo', to: 'cancelled', who: 'assignee' },
  { from: 'in_progress', to: 'review', who: 'assignee' },
  { from: 'in_progress', to: 'todo', who: 'assignee' },
  { from: 'in_progress', to: 'cancelled', who: 'assignee' },
  { from: 'review', to: 'done', who: 'reviewer' },
  { from: 'review', to: 'in_progress', who: 'reviewer' },
  // Reopening finished work and reviving cancelled work are admin decisions.
  { from: 'done', to: 'in_progress', who: 'admin' },
  { from: 'cancelled', to: 'todo', who: 'admin' },
];

/** What the caller is to this task. */
export interface TaskActor {
  isAssignee: boolean;
  isAdmin: boolean;
  isReviewer: boolean;
}

function mayTake(who: TransitionActor, a: TaskActor): boolean {
  if (a.isAdmin) return true;
  if (who === 'admin') return false;
  if (who === 'assignee') return a.isAssignee;
  return a.isAssignee || a.isReviewer;
}

export type TransitionCheck =
  | { ok: true }
  /** The caller may change nothing on this task, or not this edge. */
  | { ok: false; reason: 'forbidden'; message: string }
  /** The task is already in that status. */
  | { ok: false; reason: 'same_status'; message: string }
  /** The table has no such edge. */
  | { ok: false; reason: 'not_allowed'; message: string; allowed: TaskStatus[] };

/** Statuses this actor may move the task to from `from`. */
export function allowedNextStatuses(from: TaskStatus, a: TaskActor): TaskStatus[] {
  return TASK_TRANSITIONS.filter((t) => t.from === from && mayTake(t.who, a)).map((t) => t.to);
}

export function checkTransition(from: TaskStatus, to: TaskStatus, a: TaskActor): TransitionCheck {
  if (!a.isAssignee && !a.isAdmin && !a.isReviewer) {
    return { ok: false, reason: 'forbidden', message: 'only the assignee, an admin, or a reviewer (review -> done or in_progress) may change the status' };
  }
  if (from === to) return { ok: false, reason: 'same_status', message: `the task is already ${to}` };
  const edge = TASK_TRANSITIONS.find((t) => t.from === from && t.to === to);
  if (!edge) {
    const allowed = allowedNextStatuses(from, a);
    return {
      ok: false,
      reason: 'not_allowed',
      message: `cannot move a task from ${from} to ${to}; allowed from ${from}: ${allowed.length ? allowed.join(', ') : 'none'}`,
      allowed,
    };
  }
  if (!mayTake(edge.who, a)) {
    const who = edge.who === 'admin' ? 'an admin' : edge.who === 'assignee' ? 'the assignee or an admin' : 'the assignee, a reviewer or an admin';
    return { ok: false, reason: 'forbidden', message: `only ${who} may move a task from ${from} to ${to}` };
  }
  return { ok: true };
}

/** The table as protocol text rows: `from -> to (who)`. */
export function describeTransitions(): string[] {
  const who: Record<TransitionActor, string> = { assignee: 'assignee or admin', reviewer: 'assignee, reviewer or admin', admin: 'admin only' };
  return TASK_TRANSITIONS.map((t) => `${t.from} -> ${t.to} (${who[t.who]})`);
}

/** claim_task: only unassigned tasks of kind issue that are still open. */
export const CLAIMABLE_STATUSES: readonly TaskStatus[] = ['todo', 'in_progress'];

// ---- Codes ----

/** `<PROJECT-SLUG-UPPER>-<n>`, n from the project's counter. */
export const taskCode = (projectSlug: string, n: number): string => `${projectSlug.toUpperCase()}-${n}`;

/** Codes are matched case-insensitively; stored upper case. */
export const TASK_CODE_PATTERN = new RegExp(`^[A-Za-z0-9][A-Za-z0-9-]{0,${PROJECT_LIMITS.slugMax - 1}}-[0-9]{1,9}$`);
export const normalizeTaskCode = (code: string): string => code.trim().toUpperCase();

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (s: string): boolean => UUID.test(s);

// ---- Parent chains ----

export type ParentCheck = { ok: true; depth: number } | { ok: false; reason: 'cycle' | 'too_deep'; message: string };

/**
 * `ancestors` are the ids from the proposed parent upwards (parent first, root last), as read
 * (capped a little above MAX_TASK_DEPTH). `taskId` is the task being placed (absent for a new
 * task). A repeated id or the task itself in its own chain is a cycle; a new depth above
 * MAX_TASK_DEPTH is refused.
 */
export function checkParentChain(ancestors: readonly string[], taskId?: string): ParentCheck {
  const seen = new Set<string>();
  for (const id of ancestors) {
    if (id === taskId || seen.has(id)) return { ok: false, reason: 'cycle', message: 'the parent chain would contain a cycle' };
    seen.add(id);
  }
  const depth = ancestors.length + 1;
  if (depth > MAX_TASK_DEPTH) return { ok: false, reason: 'too_deep', message: `tasks nest at most ${MAX_TASK_DEPTH} levels deep` };
  return { ok: true, depth };
}

// ---- Reviewers and cc ----

export interface CandidateUser {
  id: string;
  status: string;
}

/**
 * Reviewer and cc lists (SPEC C create_task): unknown, inactive and self ids are dropped
 * silently, duplicates collapse, order is kept. `canSee` (when given) drops users who could not
 * see the task's project: they would be told about a task they cannot open.
 */
export function keepParticipants(
  requested: readonly string[],
  known: ReadonlyMap<string, CandidateUser>,
  callerId: string,
  canSee?: ReadonlySet<string>,
): string[] {
  const out: string[] = [];
  for (const raw of requested) {
    const u = known.get(raw.toLowerCase());
    if (u?.status !== 'active' || u.id === callerId || out.includes(u.id)) continue;
    if (canSee && !canSee.has(u.id)) continue;
    out.push(u.id);
  }
  return out;
}

// Periodic maintenance run by the job queue (pg-boss): each task is a domain function that reads
// `now` from the injected clock, so tests call `run` directly after moving a ManualClock.
import type { AppDeps } from './deps.js';
import { feedbackAutoDeleteTask } from '../domain/feedback/auto-delete-feedback.js';
import { tokenInactivityScanTask } from '../domain/tokens/inactivity-scan.js';
import { mailOutboxTask } from '../infra/mail/mail-outbox.js';
import { pruneSignInTask } from '../domain/web/prune-sign-in.js';
import { wakeSnoozedTask } from '../domain/inbox/wake-snoozed-notifications.js';
import { quietSummaryTask } from '../domain/nudges/send-quiet-summaries.js';
import { indexSearchBacklogTask } from '../domain/inbox/index-search-backlog.js';
import { partitionsAheadTask, partitionsRetentionTask } from '../infra/db/partition-tasks.js';
import { partitionsConvertTask } from '../infra/db/partition-conversion.js';

export interface MaintenanceTask {
  /** Stable job name, e.g. `feedback.auto-delete`. */
  name: string;
  /** How often the job queue runs it. */
  everySeconds: number;
  run(deps: AppDeps, now: Date): Promise<{ processed: number }>;
}

export const MAINTENANCE_TASKS: MaintenanceTask[] = [
  feedbackAutoDeleteTask,
  tokenInactivityScanTask,
  mailOutboxTask,
  pruneSignInTask,
  indexSearchBacklogTask,
  partitionsAheadTask,
  partitionsRetentionTask,
  partitionsConvertTask,
];

/** Work due within seconds, run by every process on its own timer (safe to run at once on several). */
export interface PollTask {
  name: string;
  everyMs: number;
  run(deps: AppDeps, now: Date): Promise<{ processed: number }>;
}

export const POLL_TASKS: PollTask[] = [wakeSnoozedTask, quietSummaryTask];

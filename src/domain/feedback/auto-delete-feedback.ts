// The `feedback.auto-delete` maintenance job (issue: "auto-delete after a period, executed by the
// job queue"): deletes feedback whose delete_after <= now (comments cascade) and writes one audit
// row per deleted feedback (action feedback.auto_deleted, source `job`), in batches, each batch one
// statement and one transaction. Reads already hide such feedback from delete_after on, so a late
// run never shows expired feedback. `now` comes from the caller (the queue's clock; tests move a
// ManualClock and call `run`).
import type { EntityManager, MikroORM } from '@mikro-orm/core';
import { FEEDBACK_AUDIT, FEEDBACK_JOB_SOURCE } from './feedback.audit.js';
import { deleteExpiredFeedback } from './feedback.repository.js';

export const FEEDBACK_AUTO_DELETE_BATCH = 500;

export async function autoDeleteExpiredFeedback(em: EntityManager, now: Date, batch = FEEDBACK_AUTO_DELETE_BATCH): Promise<{ processed: number }> {
  const requestId = `job_feedback_auto_delete_${now.getTime()}`;
  let processed = 0;
  for (;;) {
    const ids = await em.transactional((tx) =>
      deleteExpiredFeedback(tx, now, batch, { action: FEEDBACK_AUDIT.autoDeleted, source: FEEDBACK_JOB_SOURCE, requestId }),
    );
    processed += ids.length;
    if (ids.length < batch) return { processed };
  }
}

/** The MaintenanceTask (src/app/maintenance-tasks.ts) behind the job `feedback.auto-delete`. */
export const feedbackAutoDeleteTask = {
  name: 'feedback.auto-delete',
  everySeconds: 300,
  run: (deps: { orm: MikroORM }, now: Date): Promise<{ processed: number }> => autoDeleteExpiredFeedback(deps.orm.em.fork(), now),
};

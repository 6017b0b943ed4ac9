// The summary after quiet hours: every process runs it every 5 s (app/maintenance-tasks.ts
// POLL_TASKS). For each user with held nudges (nudge_held, written by the publish and wake
// statements) whose quiet hours ended at least NUDGE_LIMITS.quietSummaryGraceSeconds ago, or who
// has none any more, ONE summary nudge ("7 arrived while quiet: 2 warn, 5 info") is queued through
// the outbox and the held rows are deleted, in one statement that takes each user once across
// processes (takeQuietSummaries). `now` comes from the service's clock.
import type { MikroORM } from '@mikro-orm/core';
import { listHeldUsers, takeQuietSummaries } from './nudges.repository.js';
import { summaryDue } from './quiet-hours.rules.js';
import { NUDGE_LIMITS } from './nudges.limits.js';

/** Users read per page; a longer list takes several pages in one run. */
const PAGE = 500;

export const quietSummaryTask = {
  name: 'nudges.quiet-summary',
  everyMs: 5000,
  run: async (deps: { orm: MikroORM }, now: Date): Promise<{ processed: number }> => {
    let processed = 0;
    let after: string | null = null;
    for (;;) {
      const page = await listHeldUsers(deps.orm.em.fork(), after, PAGE);
      const due = page.filter((u) => summaryDue(u.quietHours, now, NUDGE_LIMITS.quietSummaryGraceSeconds * 1000)).map((u) => u.userId);
      if (due.length > 0) processed += (await deps.orm.em.fork().transactional((em) => takeQuietSummaries(em, due, now))).length;
      if (page.length < PAGE) return { processed };
      after = page[page.length - 1]!.userId;
    }
  },
};

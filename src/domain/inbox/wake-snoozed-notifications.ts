// The wake of snoozed rows: every process runs it every 2 s (app/maintenance-tasks.ts POLL_TASKS),
// so a snooze ends within seconds of its time, across restarts and several processes (the state
// is in the database; the statement takes each due row once, see wakeDueSnoozes). A woken row
// returns to the top of the Inbox, unread, and its nudge is queued in the same transaction; open
// inboxes of its owner are told after the commit. `now` comes from the service's clock.
import type { MikroORM } from '@mikro-orm/core';
import type { Ports } from '../ports.js';
import { wakeDueSnoozes } from './inbox-state.repository.js';

/** Rows per statement; a larger backlog takes several statements in one run. */
const WAKE_BATCH = 500;

export const wakeSnoozedTask = {
  name: 'inbox.snooze-wake',
  everyMs: 2000,
  run: async (deps: { orm: MikroORM; ports: Pick<Ports, 'inboxFeed'> }, now: Date): Promise<{ processed: number }> => {
    let processed = 0;
    for (;;) {
      const woken = await deps.orm.em.fork().transactional((em) => wakeDueSnoozes(em, now, WAKE_BATCH));
      processed += woken.length;
      const byUser = new Map<string, string[]>();
      for (const w of woken) byUser.set(w.user_id, [...(byUser.get(w.user_id) ?? []), w.id]);
      for (const [userId, ids] of byUser) deps.ports.inboxFeed.changed(userId, { notificationIds: ids });
      if (woken.length < WAKE_BATCH) return { processed };
    }
  },
};

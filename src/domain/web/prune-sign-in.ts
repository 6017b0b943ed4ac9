// Periodic maintenance (app/maintenance-tasks.ts): dead sign-in rows are deleted a day after they
// stopped being usable (kept that long for support questions: "why was I signed out?").
import type { MikroORM } from '@mikro-orm/core';
import { deleteDeadSignInRows } from './web-sessions.repository.js';

const KEEP_MS = 24 * 60 * 60 * 1000;

export const pruneSignInTask = {
  name: 'web.sign-in-prune',
  everySeconds: 3600,
  run: async (deps: { orm: MikroORM }, now: Date): Promise<{ processed: number }> => ({
    processed: await deleteDeadSignInRows(deps.orm.em.fork(), new Date(now.getTime() - KEEP_MS)),
  }),
};

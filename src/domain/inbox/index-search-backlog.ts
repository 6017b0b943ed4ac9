// Periodic maintenance (app/maintenance-tasks.ts, once across processes): gives every row written
// without a search document its document (search-doc.repository.ts says which rows those are), in
// batches of short transactions, so an upgraded installation's old inbox becomes searchable within
// minutes of the upgrade and rows a previous-release process wrote meanwhile within a run.
import type { MikroORM } from '@mikro-orm/core';
import { type BacklogRow, takeSearchBacklog, writeSearchDocs } from './search-doc.repository.js';
import { searchLexemes } from './search-doc.rules.js';

/** Rows per transaction, and transactions per run (a larger backlog continues next run). */
const BATCH = 1000;
const BATCHES_PER_RUN = 200;

const wordsOf = (r: BacklogRow) => searchLexemes({ userId: r.user_id, title: r.title, summary: r.summary, labels: r.labels, actorName: r.actor_name });

export const indexSearchBacklogTask = {
  name: 'inbox.search-backlog',
  everySeconds: 60,
  run: async (deps: { orm: MikroORM }): Promise<{ processed: number }> => {
    let processed = 0;
    let after = '00000000-0000-0000-0000-000000000000';
    for (let i = 0; i < BATCHES_PER_RUN; i++) {
      const n = await deps.orm.em.fork().transactional(async (em) => {
        const rows = await takeSearchBacklog(em, after, BATCH);
        if (rows.length > 0) after = rows[rows.length - 1]!.id;
        await writeSearchDocs(
          em,
          rows.map((row) => ({ row, words: wordsOf(row) })),
        );
        return rows.length;
      });
      processed += n;
      if (n < BATCH) break;
    }
    return { processed };
  },
};

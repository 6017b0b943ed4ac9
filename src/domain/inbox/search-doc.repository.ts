// The search documents of rows written without one: every row from before
// Migration20261129100000InboxSearch, and rows the previous release inserts while both releases
// run. Found through the partial index of rows without a document (notifications_search_backlog_index).
import type { EntityManager } from '@mikro-orm/core';
import { run } from '../sql.js';
import { searchDocSql } from './search-doc.rules.js';
import { deliveryOf } from './inbox-view.repository.js';

export interface BacklogRow {
  id: string;
  user_id: string;
  title: string;
  summary: string | null;
  labels: unknown;
  actor_name: string | null;
  severity: string | null;
  event_type: string | null;
  token_id: string | null;
}

/**
 * Up to `limit` rows without a document after `afterId` in id order, locked for this transaction
 * (others skip them). A run walks on from its last id: the partial index keeps the entries of rows
 * it already gave a document until a vacuum, and a walk from the start would pass them each time.
 */
export function takeSearchBacklog(em: EntityManager, afterId: string, limit: number): Promise<BacklogRow[]> {
  return run<BacklogRow>(
    em,
    `select n.id, n.user_id, n.title, n.summary, d.labels, coalesce(d.actor->>'name', u.name) as actor_name, d.severity, d.event_type, d.token_id
     from notifications n left join deliveries d on ${deliveryOf('n', 'd')} left join users u on u.id = n.actor_user_id
     where n.search_doc is null and n.id > ?::uuid order by n.id limit ?::int for update of n skip locked`,
    [afterId, limit],
  );
}

/** Writes the documents of taken rows: their word lexemes, with severity, type and token as taken. */
export async function writeSearchDocs(em: EntityManager, docs: Array<{ row: BacklogRow; words: string[] }>): Promise<void> {
  if (docs.length === 0) return;
  const x = docs.map(({ row, words }) => ({ id: row.id, words, severity: row.severity, event_type: row.event_type, token_id: row.token_id }));
  await run(
    em,
    `update notifications n set search_doc = ${searchDocSql('x.words', 'n.user_id', 'x.severity', 'x.event_type', 'x.token_id')}
     from jsonb_to_recordset(?::jsonb) as x(id uuid, words text[], severity text, event_type text, token_id uuid)
     where n.id = x.id`,
    [JSON.stringify(x)],
  );
}

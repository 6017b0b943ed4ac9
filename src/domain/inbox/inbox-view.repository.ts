// Named queries of the person-facing inbox (InboxService: the web app and any company frontend).
// Every statement filters on the owner in SQL (`n.user_id = ?`): another user's id reads, counts
// and changes nothing, exactly like an unknown id. An item carries its event's fields from the
// delivery (deliveries, one row by primary key) with its supplements and actions in the SAME
// statement (a correlated aggregate per item): a page is one round trip whatever its size.
import type { EntityManager } from '@mikro-orm/core';
import { run } from '../sql.js';
import { PREPARED, PREPARED_IF_ROOM, pgArray } from '../sql-hints.js';
import { INBOX_LIMITS, ITEM_STATES, type InboxView, type ItemState, VIEW_STATES } from './inbox.limits.js';
import type { InboxQuery, QueryFilter } from './inbox-query.rules.js';
import { type FromTokens, inTsquery, SEARCH_INDEX_EXPR, searchTsqueryParts, stateLexemeQuery, tsqueryOf } from './search-doc.rules.js';

export interface InboxItemRow {
  id: string;
  type: string;
  title: string;
  summary: string | null;
  body: string | null;
  read_at: Date | string | null;
  created_at: Date | string;
  updated_at: Date | string;
  target_url: string | null;
  delivery_id: string | null;
  actor_user_id: string | null;
  actor_email: string | null;
  actor_name: string | null;
  /** The sending token (events only): with event_type, the group a row belongs to. */
  token_id: string | null;
  event_type: string | null;
  severity: string | null;
  tone: string | null;
  markdown_body_rendering: string | null;
  external_url: string | null;
  external_status: string | null;
  external_status_at: Date | string | null;
  resolved_at: Date | string | null;
  resolution_note: string | null;
  fire_count: number | null;
  /** deliveries.actor as sent: {email, name?}. */
  event_actor: { email?: unknown; name?: unknown } | null;
  labels: Record<string, unknown> | null;
  /** deliveries.actions as stored (webhook_url included: the view never passes it on). */
  actions: unknown[] | null;
  occurred_at: Date | string | null;
  /** [{id, markdown_body, created_at}] oldest first, or null. */
  supplements: Array<{ id: string; markdown_body: string; created_at: string }> | null;
  state: ItemState;
  snoozed_until: Date | string | null;
  done_at: Date | string | null;
  /** The row's place in the lists: its creation, or when it came back from snooze. */
  listed_at: Date | string;
}

// updated_at: the latest of the row's own changes (a read mark, a repeat's new text) and its
// delivery's (a repeat's arrival, a resolve, a supplement); greatest() skips NULLs.
// external_status_at: when the status took its present value (set by the publish statements and
// resolve). Rows written before that column fall back to what was shown until then: resolved_at
// for `resolved` (a resolve stamps it), else the last arrival.
const ITEM_COLUMNS = `n.id, n.type, n.title, n.summary, n.body, n.read_at, n.created_at,
  greatest(n.updated_at, d.last_event_at, d.resolved_at, s.last_at) as updated_at,
  n.target_url, n.delivery_id, n.actor_user_id, u.email as actor_email, u.name as actor_name,
  d.token_id, d.event_type, d.severity, d.tone, d.markdown_body_rendering, d.external_url, d.external_status,
  case when d.external_status is null then null
       when d.external_status_at is not null then d.external_status_at
       when d.external_status = 'resolved' and d.resolved_at is not null then d.resolved_at
       else d.last_event_at end as external_status_at,
  d.resolved_at, d.resolution_note, d.fire_count, d.actor as event_actor, d.labels, d.actions, d.occurred_at,
  s.items as supplements, n.state, n.snoozed_until, n.done_at, coalesce(n.listed_at, n.created_at) as listed_at`;

/** What an agent's list item shows (MCP list_inbox): no body, supplements, labels or actions to fetch. */
const BRIEF_COLUMNS = `n.id, n.type, n.title, n.summary, n.read_at, n.created_at, n.target_url, n.delivery_id, n.actor_user_id,
  u.email as actor_email, u.name as actor_name, d.token_id, d.event_type, d.severity, d.external_status, d.fire_count,
  n.state, n.snoozed_until`;
/** The names BRIEF_COLUMNS come out under (a page's outer select lists them, and nothing else of the row). */
const BRIEF_NAMES = BRIEF_COLUMNS.split(',')
  .map(
    (c) =>
      `i.${c
        .trim()
        .split(/[\s.]+/)
        .at(-1)}`,
  )
  .join(', ');
/**
 * An inbox row's delivery (`d`) of row `n`: by its primary key (id, created_at). The publish
 * statement writes an inbox row with its delivery's time (the same `at`; no other writer gives a row
 * a delivery_id, and neither time ever changes), so the probe names one monthly partition of
 * deliveries instead of every partition's index (tested by lifecycle/deliveries-partitioned).
 */
export const deliveryOf = (n: string, d: string) => `${d}.id = ${n}.delivery_id and ${d}.created_at = ${n}.created_at`;

const BRIEF_JOINS = `left join users u on u.id = n.actor_user_id
  left join deliveries d on ${deliveryOf('n', 'd')}`;

/** The columns of BRIEF_COLUMNS. */
export type BriefItemRow = Pick<
  InboxItemRow,
  | 'id'
  | 'type'
  | 'title'
  | 'summary'
  | 'read_at'
  | 'created_at'
  | 'target_url'
  | 'delivery_id'
  | 'token_id'
  | 'actor_user_id'
  | 'actor_email'
  | 'actor_name'
  | 'event_type'
  | 'severity'
  | 'external_status'
  | 'fire_count'
  | 'state'
  | 'snoozed_until'
>;

const ITEM_JOINS = `left join users u on u.id = n.actor_user_id
  left join deliveries d on ${deliveryOf('n', 'd')}
  left join lateral (
    select json_agg(json_build_object('id', x.id, 'markdown_body', x.markdown_body, 'created_at', x.created_at) order by x.created_at, x.seq) as items,
      max(x.created_at) as last_at
    from delivery_supplements x where n.delivery_id is not null and x.delivery_id = n.delivery_id
  ) s on true`;

export interface InboxViewFilter {
  userId: string;
  view: InboxView;
  unreadOnly: boolean;
  /** Empty: every severity. */
  severities: readonly string[];
  /** Undefined: every event type. */
  eventType: string | undefined;
  /** Undefined: every notification type (`task`, `review`, `meeting`, `system`). */
  notificationType?: string | undefined;
  /** A search (inbox-query.rules.ts); absent: none. */
  query?: InboxQuery | undefined;
  /** Rows strictly after this (list position text, id), newest first. */
  after: { at: string; id: string } | undefined;
  /** The tokens each positive `from:` of the query names (withFromTokens: the statements look them up first). */
  fromTokens?: FromTokens | undefined;
}

/** Rows and unread rows of one view. */
export interface ViewCount {
  total: number;
  unread: number;
}

export interface InboxViewPage<R> {
  /** Rows matching the view and filters (all pages). */
  total: number;
  /** Unread rows among them. */
  unread: number;
  /** A search matched more than INBOX_LIMITS.searchCountMax rows: total is that cap, unread counts those first matches. */
  capped: boolean;
  /** Every view's counts (the notification type filter applies; the event filters do not). */
  views: Record<InboxView, ViewCount>;
  /** Up to limit + 1 rows: one more than the page tells that another page follows. */
  rows: R[];
}

/** A row's place in every list: where it was listed (a woken snooze: its wake), else its creation. */
const LIST_KEY = 'coalesce(n.listed_at, n.created_at)';

/**
 * A column of the row's delivery as a scalar subquery (one primary key probe per row the
 * statement looks at). Never a join: a condition on a joined delivery lets the planner start from
 * the deliveries (a whole table's scan, or every delivery of a token) instead of the caller's own
 * rows through the list or search index.
 */
const deliveryCol = (col: string) => `(select x.${col} from deliveries x where ${deliveryOf('n', 'x')})`;

/** A row condition and its values. */
interface Cond {
  sql: string;
  params: unknown[];
}

/** A token (`t`, its integrator `i`) a `from:` name (lower case) names: its label in any case, or its integrator's slug. */
const NAMES_TOKEN = (name: string) => `(lower(t.label) = ${name} or i.slug = ${name})`;

/** The caller's tokens with one of these labels or integrator slugs (lower case), as an array. */
const TOKENS_NAMED = `select t.id from inbound_tokens t left join integrators i on i.id = t.integrator_id
  where t.owner_user_id = ? and ${NAMES_TOKEN('any(?::text[])')}`;

/**
 * One qualifier of the search language as a row condition (negated: NOT, with NULL as no match).
 * `severity:` and `type:` are in the search's tsquery when it has one (searchTsquery, inTsquery), a
 * positive `from:` always: those arrive here only when the index cannot answer them.
 */
function qualifierCond(userId: string, q: QueryFilter): Cond {
  let c: Cond;
  switch (q.name) {
    case 'is': {
      const IS: Record<string, string> = {
        unread: 'n.read_at is null',
        read: 'n.read_at is not null',
        snoozed: "n.state = 'snoozed'",
        done: "n.state = 'done'",
      };
      c = { sql: q.values.map((v) => IS[v]).join(' or '), params: [] };
      break;
    }
    case 'severity':
      c = { sql: `${deliveryCol('severity')} = any(?::text[])`, params: [pgArray(q.values)] };
      break;
    case 'status':
      c = { sql: `${deliveryCol('external_status')} = any(?::text[])`, params: [pgArray(q.values)] };
      break;
    case 'type':
      c = { sql: q.values.map(() => `starts_with(${deliveryCol('event_type')}, ?)`).join(' or '), params: q.values };
      break;
    case 'from': {
      const names = pgArray(q.values.map((v) => v.toLowerCase()));
      c = { sql: `${deliveryCol('token_id')} = any(array(${TOKENS_NAMED}))`, params: [userId, names, names] };
      break;
    }
    case 'after':
      c = { sql: 'n.created_at >= ?::timestamptz', params: [`${q.values[0]}T00:00:00Z`] };
      break;
    case 'before':
      c = { sql: 'n.created_at < ?::timestamptz', params: [`${q.values[0]}T00:00:00Z`] };
      break;
  }
  return q.negated ? { sql: `not coalesce((${c.sql}), false)`, params: c.params } : { sql: `(${c.sql})`, params: c.params };
}

/**
 * The filter with the caller's tokens its query's positive `from:` qualifiers name (by label or
 * integrator slug, as a person reads them in the integrations list), looked up in one statement
 * before the search: a `from:` then is an operand of the search's tsquery like any word.
 */
async function withFromTokens<F extends Omit<InboxViewFilter, 'after'>>(em: EntityManager, f: F): Promise<F> {
  const froms = f.query?.filters.filter((q) => q.name === 'from' && !q.negated) ?? [];
  if (froms.length === 0) return f;
  const names = [...new Set(froms.flatMap((q) => q.values.map((v) => v.toLowerCase())))];
  // Each name with the tokens it names (the rule is NAMES_TOKEN's, in SQL only).
  const rows = await run<{ name: string; id: string }>(
    em,
    `${PREPARED} select w.name, t.id from unnest(?::text[]) as w (name)
     join inbound_tokens t on t.owner_user_id = ? left join integrators i on i.id = t.integrator_id
     where ${NAMES_TOKEN('w.name')}`,
    [pgArray(names), f.userId],
  );
  const fromTokens: FromTokens = (q) => {
    const wanted = new Set(q.values.map((v) => v.toLowerCase()));
    return [...new Set(rows.filter((r) => wanted.has(r.name)).map((r) => r.id))];
  };
  return { ...f, fromTokens };
}

/**
 * How a search's text conditions are written: `gin` against the search index's expression (with
 * the view's state lexeme when it lists one state), so the index can find the rows; `row` against
 * the row's own document, tested on rows another index already found (a walk in list order).
 */
type TextMatch = 'gin' | 'row';

/**
 * The row conditions of the filters besides owner and state, over `n` (notifications). `part`
 * (gin only): the index is asked for that positive operand of the search's tsquery (and its
 * NOTs) only, and the whole tsquery is tested on the rows it finds.
 */
function filterConds(f: Omit<InboxViewFilter, 'after'>, match: TextMatch = 'gin', part?: number): Cond {
  const conds: Cond[] = [];
  if (f.unreadOnly) conds.push({ sql: 'n.read_at is null', params: [] });
  if (f.severities.length > 0) conds.push({ sql: `${deliveryCol('severity')} = any(?::text[])`, params: [pgArray(f.severities)] });
  if (f.eventType !== undefined) conds.push({ sql: `${deliveryCol('event_type')} = ?`, params: [f.eventType] });
  if (f.notificationType !== undefined) conds.push({ sql: 'n.type = ?', params: [f.notificationType] });
  if (f.query !== undefined) {
    // Words and positive severity / type / from: the search document (the GIN index); the rest as rows.
    const states = VIEW_STATES[f.view];
    const doc = match === 'gin' ? SEARCH_INDEX_EXPR : 'n.search_doc';
    const state = match === 'gin' && states.length === 1 ? stateLexemeQuery(f.userId, states[0]!) : undefined;
    const parts = searchTsqueryParts(f.userId, f.query, f.fromTokens);
    if (parts !== undefined) {
      const asked = tsqueryOf(parts, part);
      conds.push({ sql: `${doc} @@ ?::tsquery`, params: [state === undefined ? asked : `(${asked}) & ${state}`] });
      if (part !== undefined && parts.positive.length > 1) conds.push({ sql: 'n.search_doc @@ ?::tsquery', params: [tsqueryOf(parts)] });
    }
    for (const q of f.query.filters) if (!inTsquery(q, f.query)) conds.push(qualifierCond(f.userId, q));
  }
  return { sql: conds.map((c) => ` and ${c.sql}`).join(''), params: conds.flatMap((c) => c.params) };
}

/** Filters the counters cannot answer: the matching rows are counted (else the counters and the bare index range serve). */
const rowFiltered = (f: Omit<InboxViewFilter, 'after'>) =>
  f.severities.length > 0 || f.eventType !== undefined || (f.query !== undefined && (f.query.words.length > 0 || f.query.filters.length > 0));

/**
 * Moves up to `limit` of the caller's rows of a view (not done) matching the filters to Done,
 * newest first; the ids it changed. The statement re-checks the state of each row it takes.
 */
export async function markViewDone(em: EntityManager, f: Omit<InboxViewFilter, 'after'>, limit: number, now: Date): Promise<string[]> {
  const states = VIEW_STATES[f.view].filter((st) => st !== 'done');
  if (states.length === 0) return [];
  const cond = filterConds(await withFromTokens(em, f));
  const at = now.toISOString();
  const rows = await run<{ id: string }>(
    em,
    `update notifications set state = 'done', done_at = ?::timestamptz, snoozed_until = null,
       read_at = coalesce(read_at, ?::timestamptz), updated_at = ?::timestamptz
     where id in (
       select n.id from notifications n
       where n.user_id = ? and n.state in (${states.map((st) => `'${st}'`).join(', ')})${cond.sql}
       order by ${LIST_KEY} desc, n.id desc limit ?::int for update of n skip locked
     ) and state <> 'done' returning id`,
    [at, at, at, f.userId, ...cond.params, limit],
  );
  return rows.map((r) => r.id);
}

/** A view's states (and as an SQL list), and the condition and values of rows after the page token. */
function viewRange(f: InboxViewFilter) {
  const states = VIEW_STATES[f.view];
  return {
    states,
    stateList: states.map((st) => `'${st}'`).join(', '),
    afterSql: f.after ? ` and (${LIST_KEY}, n.id) < (?::timestamptz, ?::uuid)` : '',
    afterParams: f.after ? [f.after.at, f.after.id] : [],
  };
}

/** A search's CTEs (the counts in `m`) and the query of its page's ids and list keys. */
interface SearchParts {
  ctes: string;
  ctesParams: unknown[];
  ids: string;
  idsParams: unknown[];
}

/**
 * A search whose tsquery ANDs several positive operands (`db 17`): the index is asked for the one
 * that is rarest among the view's newest rows, the whole search tested on the rows it finds. An
 * AND of prefixes makes the index read every operand's rows in full: `db` (every label) for
 * `db-17`. Each operand's condition (`conds`, filterConds with `part`) and tsquery (`operands`).
 */
interface SplitGin {
  operands: string[];
  conds: Cond[];
}

/**
 * The CTEs that pick SplitGin's operand (`rk`, index into it): each operand's matches among the
 * view's newest searchProbeRows rows (`pr`, their documents), fewest first. Read only when the
 * index is asked (the GIN CTE's gate), so a search the walk decides never reads them.
 */
function splitCtes(split: SplitGin, states: readonly string[]): string {
  const PROBE = INBOX_LIMITS.searchProbeRows;
  const branch = (st: string) =>
    `(select n.search_doc as doc, ${LIST_KEY} as k, n.id from notifications n where n.user_id = ? and n.state = '${st}' order by ${LIST_KEY} desc, n.id desc limit ${PROBE})`;
  return `pr as materialized (select x.doc from (${states.map(branch).join(' union all ')}) x order by x.k desc, x.id desc limit ${PROBE}),
rk as (select v.i from (values ${split.operands.map((_, i) => `(${i}, (select count(*) from pr x where x.doc @@ ?::tsquery))`).join(', ')}) v (i, c) order by v.c, v.i limit 1),
`;
}

/**
 * A search with a text part (words, a positive severity, type or from). Its matches are found the
 * cheaper of two ways, decided by the search itself, never by a planner's guess of how many rows a
 * prefix matches:
 *  - **In list order** (what a broad search needs): a probe tests the view's newest
 *    searchProbeRows rows as it reads them, stopping at searchCountMax + 1 matches (`p`). When it
 *    found fewer, but at least one in about thirty of its rows matched (`dense`), the walk goes on from
 *    its last match (`cw`) for up to searchWalkRows more rows, stopping at searchCountMax + 1
 *    matches in all. The walk decides the counts when it found that many (capped) or read the
 *    whole view (exact: the view's row count, from inbox_counters, tells); its first matches are
 *    then the first page.
 *  - **Through the GIN index** of SEARCH_INDEX_EXPR (a search the walk could not decide: its
 *    matches are rare among the newest rows): the view's matches, up to searchCountMax + 1 (`g`);
 *    one state: its lexeme is in the tsquery, so rows of other views are never read. At most
 *    searchCountMax: `g` holds them all, and a page is its newest rows after the page token.
 * A page after a token of a search with more matches than searchCountMax is walked from the token
 * (`w`, up to searchWalkRows rows); when that finds less than a page (the many matches are old),
 * the index's matches are sorted instead. Counts past the cap are `capped`.
 */
function indexedSearchParts(f: InboxViewFilter, gin: Cond, row: Cond, split: SplitGin | undefined, pageRows: number): SearchParts {
  const CAP = INBOX_LIMITS.searchCountMax + 1;
  const PROBE = INBOX_LIMITS.searchProbeRows;
  const WALK = INBOX_LIMITS.searchWalkRows;
  /**
   * Probe matches from which the walk (the probe's rows and WALK more) can be expected to reach
   * CAP: four fifths of the even share, as a probe's count varies. A walk that falls short
   * costs its rows before the index answers; a broad word beside a rare one (`db-17`: every
   * label has `db`) costs the index more than that.
   */
  const DENSE = Math.floor((0.8 * CAP * PROBE) / (PROBE + WALK));
  const { states, stateList, afterSql, afterParams } = viewRange(f);
  // Owner, state and list position are checked on the rows the GIN index finds (they are the
  // owner's by the lexemes' key, bar a collision), never intersected with the list index: `is
  // true` keeps the planner from reading its ranges as a second bitmap.
  const ginRows = (range: string, c: Cond = gin) => `(n.user_id = ? and n.state in (${stateList})${range}) is true${c.sql}`;
  const ctesParams: unknown[] = [];
  /** The view's rows in list order from `range` (each state's range of the list index, merged), each with whether it matches. */
  const walk = (gate: string, range: string, rangeParams: readonly unknown[], rows: number) =>
    `select x.* from (${states
      .map((st) => {
        ctesParams.push(...row.params, f.userId, ...rangeParams);
        return `(select n.id, ${LIST_KEY} as k, n.read_at, (true${row.sql}) as hit from notifications n
      where ${gate} and n.user_id = ? and n.state = '${st}'${range} order by ${LIST_KEY} desc, n.id desc limit ${rows})`;
      })
      .join(' union all ')}) x order by x.k desc, x.id desc limit ${rows}`;
  ctesParams.push(f.userId);
  const decided = `(select s.hits >= ${CAP} or s.view_rows <= ${PROBE} or (s.dense and s.view_rows <= ${WALK}) from s)`;
  const many = `((select s.hits from s) >= ${CAP} or (select count(*) from g) = ${CAP})`;
  const first = f.after === undefined;
  // The page walk: from the token, or (a first page) from the top when the walk's own matches are less than a page.
  const pageWalkGate = first ? `${many} and (select s.hits from s) < ${pageRows}` : many;
  // The probe keeps its matches only (up to CAP: a broad search stops early); when it found fewer,
  // it read PROBE rows or the whole view. The walk goes on from its last match.
  let ctes = `vt as (select coalesce(sum(total), 0)::int as total from inbox_counters where user_id = ? and state in (${stateList})),
p as materialized (select x.id, x.k, x.read_at from (${walk('true', '', [], PROBE)}) x where x.hit limit ${CAP}),
cw as materialized (
  select x.id, x.k, x.read_at from (${walk(
    `(select count(*) from p) between ${DENSE} and ${CAP - 1} and (select total from vt) > ${PROBE}`,
    ` and (${LIST_KEY}, n.id) < (select x.k, x.id from p x order by x.k, x.id limit 1)`,
    [],
    WALK,
  )}) x where x.hit limit greatest(0, ${CAP} - (select count(*) from p))
),
h as materialized ((select x.id, x.k, x.read_at from p x) union all (select x.id, x.k, x.read_at from cw x)),
s as materialized (select (select count(*) from p) >= ${DENSE} as dense, (select count(*) from h)::int as hits, (select total from vt) as view_rows),
${split === undefined ? '' : splitCtes(split, states)}g as materialized (${
    split === undefined
      ? `select n.id, ${LIST_KEY} as k, n.read_at from notifications n where not ${decided} and ${ginRows('')} limit ${CAP}`
      : split.conds
          .map(
            (c, i) =>
              `(select n.id, ${LIST_KEY} as k, n.read_at from notifications n where not ${decided} and (select rk.i from rk) = ${i} and ${ginRows('', c)} limit ${CAP})`,
          )
          .join(' union all ')
  }),
m as (
  select count(*)::int as total, (count(*) filter (where x.read_at is null))::int as unread
  from ((select x.read_at from (select x.* from h x order by x.k desc, x.id desc limit ${CAP}) x where ${decided}) union all (select x.read_at from g x)) x
),
`;
  if (split === undefined) ctesParams.push(f.userId, ...gin.params);
  else {
    for (const _ of states) ctesParams.push(f.userId);
    ctesParams.push(...split.operands);
    for (const c of split.conds) ctesParams.push(f.userId, ...c.params);
  }
  ctes += `w as materialized (
  select x.id, x.k from (${walk(pageWalkGate, afterSql, afterParams, WALK)}) x where x.hit limit ${pageRows}
), `;
  const afterX = first ? '' : ' and (x.k, x.id) < (?::timestamptz, ?::uuid)';
  const idsParams: unknown[] = [...afterParams];
  let ids = `select x.id, x.k from (
  (select x.id, x.k from ((select x.id, x.k from h x where ${decided}) union all (select x.id, x.k from g x)) x
   where not ${many}${afterX} order by x.k desc, x.id desc limit ${pageRows})`;
  if (first)
    ids += `
  union all
  (select x.id, x.k from h x where ${many} and (select s.hits from s) >= ${pageRows} order by x.k desc, x.id desc limit ${pageRows})`;
  ids += `
  union all
  (select x.id, x.k from w x where (select count(*) from w) = ${pageRows})
  union all
  (select n.id, ${LIST_KEY} as k from notifications n
   where ${pageWalkGate} and (select count(*) from w) < ${pageRows} and ${ginRows(afterSql)}
   order by ${LIST_KEY} + interval '0 s' desc, n.id desc limit ${pageRows})
) x order by x.k desc, x.id desc limit ${pageRows}`;
  idsParams.push(f.userId, ...afterParams, ...gin.params);
  return { ctes, ctesParams, ids, idsParams };
}

/**
 * A search of row conditions only (is:, status:, after:, before:, negated qualifiers): no index
 * knows them. A probe reads the newest searchProbeRows rows of the view in list order (each
 * state's range of the list index, merged) and tests each as it is read: the page (and often the
 * count) is among them; else each state's range is walked on for the page, and the count goes on
 * past the probe, up to searchCountMax + 1 matches in all (more: `capped`).
 */
function rowSearchParts(f: InboxViewFilter, cond: Cond, pageRows: number): SearchParts {
  const PROBE = INBOX_LIMITS.searchProbeRows;
  const CAP = INBOX_LIMITS.searchCountMax + 1;
  const { states, stateList, afterSql, afterParams } = viewRange(f);
  // A probe row keeps whether it matches, tested as the range is read (its columns are never copied).
  const probe = (withAfter: boolean) => {
    const params: unknown[] = [];
    const branch = (st: string) => {
      params.push(...cond.params, f.userId, ...(withAfter ? afterParams : []));
      return `(select n.id, ${LIST_KEY} as k, n.read_at, (true${cond.sql}) as hit from notifications n
    where n.user_id = ? and n.state = '${st}'${withAfter ? afterSql : ''} order by ${LIST_KEY} desc, n.id desc limit ${PROBE})`;
    };
    const sql = `select x.* from (${states.map(branch).join(' union all ')}) x order by x.k desc, x.id desc limit ${PROBE}`;
    return { sql, params };
  };
  const top = probe(false);
  const ctes = [`p as materialized (${top.sql}), pm as materialized (select x.id, x.k, x.read_at from p x where x.hit)`];
  const ctesParams = [...top.params];
  // Counted rows: the probe's matches, and when the probe did not reach the view's end, the
  // matches older than its last row.
  ctes.push(`m as (
  select count(*)::int as total, (count(*) filter (where x.read_at is null))::int as unread
  from ((select read_at from pm)
    union all
    (select n.read_at from notifications n
     where (select count(*) from p) = ${PROBE}
       and n.user_id = ? and n.state in (${stateList}) and (${LIST_KEY}, n.id) < (select x.k, x.id from p x order by x.k, x.id limit 1)${cond.sql}
     limit ${CAP})
  limit ${CAP}) x
)`);
  ctesParams.push(f.userId, ...cond.params);
  // The page, from the page token's place: the probe again (the same CTE on a first page).
  let probeName = 'p';
  let matchName = 'pm';
  if (f.after) {
    const from = probe(true);
    ctes.push(`pp as materialized (${from.sql}), ppm as materialized (select x.id, x.k, x.read_at from pp x where x.hit)`);
    ctesParams.push(...from.params);
    probeName = 'pp';
    matchName = 'ppm';
  }
  const enough = `((select count(*) from ${matchName}) >= ${pageRows} or (select count(*) from ${probeName}) < ${PROBE})`;
  const idsParams: unknown[] = [];
  // The narrow way: each state's range walked on in order, merged.
  const narrow = `select x.id, x.k from (${states
    .map((st) => {
      idsParams.push(f.userId, ...afterParams, ...cond.params);
      return `(select n.id, ${LIST_KEY} as k from notifications n
     where not ${enough} and n.user_id = ? and n.state = '${st}'${afterSql}${cond.sql}
     order by ${LIST_KEY} desc, n.id desc limit ${pageRows})`;
    })
    .join(' union all ')}) x`;
  const ids = `select x.id, x.k from (
  (select x.id, x.k from ${matchName} x where ${enough} order by x.k desc, x.id desc limit ${pageRows})
  union all
  (${narrow})
) x order by x.k desc, x.id desc limit ${pageRows}`;
  return { ctes: `${ctes.join(',\n')}, `, ctesParams, ids, idsParams };
}

/** A search's parts: through the GIN index when it has a text part, else by rows. */
function searchParts(f: InboxViewFilter, pageRows: number): SearchParts {
  const gin = filterConds(f, 'gin');
  const row = filterConds(f, 'row');
  if (!gin.sql.includes(SEARCH_INDEX_EXPR)) return rowSearchParts(f, row, pageRows);
  const operands = f.query === undefined ? [] : (searchTsqueryParts(f.userId, f.query, f.fromTokens)?.positive ?? []);
  const split = operands.length > 1 ? { operands, conds: operands.map((_, i) => filterConds(f, 'gin', i)) } : undefined;
  return indexedSearchParts(f, gin, row, split, pageRows);
}

/**
 * The page statement: counts from inbox_counters (per state, so each view's count is a sum of at
 * most 4 x 3 rows) unless a filter reads the delivery or the text (severity, type, a search: the
 * view's matching rows are counted then); items walk (user_id, state, list key, id) backwards, one
 * index range per state the view lists (All: three, merged), from the page token, stopping at
 * limit + 1 or at the number of matching rows. Values are always parameters; the text varies only
 * with which filters are present, so each combination is one prepared statement.
 */
function pageStatement(f: InboxViewFilter, limit: number, brief: boolean): { sql: string; params: unknown[] } {
  const params: unknown[] = [];
  const byKind = f.notificationType !== undefined;
  const filtered = rowFiltered(f);
  const cond = filterConds(f);
  const states = VIEW_STATES[f.view];
  const stateList = states.map((st) => `'${st}'`).join(', ');
  const count = (col: string, st: string) => `coalesce(sum(${col}) filter (where state = '${st}'), 0)::int`;

  // Counts (CTE c).
  const counterCols = ITEM_STATES.map((st) => `${count('total', st)} as ${st}_total, ${count('unread', st)} as ${st}_unread`).join(', ');
  let viewTotal: string;
  let viewUnread: string;
  let matched = '';
  const search = f.query !== undefined ? searchParts(f, limit + 1) : undefined;
  if (search) {
    matched = search.ctes;
    params.push(...search.ctesParams);
    viewTotal = '(select total from m)';
    viewUnread = '(select unread from m)';
  } else if (filtered) {
    matched = `m as (
  select count(*)::int as total, (count(*) filter (where n.read_at is null))::int as unread
  from notifications n where n.user_id = ? and n.state in (${stateList})${cond.sql}
), `;
    params.push(f.userId, ...cond.params);
    viewTotal = '(select total from m)';
    viewUnread = '(select unread from m)';
  } else {
    viewTotal = states.map((st) => count(f.unreadOnly ? 'unread' : 'total', st)).join(' + ');
    viewUnread = states.map((st) => `${count('unread', st)}`).join(' + ');
  }
  let c: string;
  if (brief && matched !== '') {
    // A brief page reads no per-view counts: the counted rows (m) are all it needs.
    c = `with ${matched}c as (select ${viewTotal} as total_count, ${viewUnread} as unread_count)`;
  } else {
    params.push(f.userId);
    if (byKind) params.push(f.notificationType);
    // One row of counts: the counter sums are aggregates (a brief page without m has its view's
    // sums; any other page has every view's).
    c = `with ${matched}c as (
  select ${viewTotal} as total_count, ${viewUnread} as unread_count${brief ? '' : `, ${counterCols}`}
  from inbox_counters where user_id = ?${byKind ? ' and type = ?' : ''}
)`;
  }

  const columns = brief ? BRIEF_COLUMNS : ITEM_COLUMNS;
  const joins = brief ? BRIEF_JOINS : ITEM_JOINS;
  const after = f.after ? ` and (${LIST_KEY}, n.id) < (?::timestamptz, ?::uuid)` : '';
  const pushRange = () => {
    params.push(f.userId, ...cond.params);
    if (f.after) params.push(f.after.at, f.after.id);
    params.push(limit + 1);
  };
  let items: string;
  if (search) {
    params.push(...search.idsParams);
    items = `select ${columns}, extract(epoch from p.k) as list_key, p.k::text as cursor_at
  from (${search.ids}) p join notifications n on n.id = p.id
  ${joins}`;
  } else if (states.length === 1 && !filtered) {
    // One state, no row filter: one ordered, bounded index range, its columns read as the scan goes.
    pushRange();
    items = `select ${columns}, extract(epoch from ${LIST_KEY}) as list_key${brief ? '' : `, ${LIST_KEY}::text as cursor_at`}
  from notifications n ${joins}
  where n.user_id = ? and n.state = '${states[0]}'${cond.sql}${after}
  order by ${LIST_KEY} desc, n.id desc limit least(?::int, c.total_count)`;
  } else {
    // Several states, or row filters: the ids of each state's range (the planner walks it in order,
    // or collects a search's matches from the GIN index and keeps the newest), merged, then the
    // page's rows by id: the joins read the page's rows only, never every match.
    const branch = (st: string) => {
      pushRange();
      return `select n.id, ${LIST_KEY} as k from notifications n
    where n.user_id = ? and n.state = '${st}'${cond.sql}${after}
    order by ${LIST_KEY} desc, n.id desc limit least(?::int, c.total_count)`;
    };
    const ids = `select x.id, x.k from (${states.map((st) => `(${branch(st)})`).join(' union all ')}) x order by x.k desc, x.id desc limit ?::int`;
    params.push(limit + 1);
    items = `select ${columns}, extract(epoch from p.k) as list_key, p.k::text as cursor_at
  from (${ids}) p join notifications n on n.id = p.id
  ${joins}`;
  }

  // The outer order needs the list position, but the caller does not: as a number it costs the
  // driver no Date per row.
  // Prepared too with a search: its plan's shape is fixed by the statement (CTEs, `is true`), not
  // by the planner's guess of the values, so a generic plan is the same plan. Its text varies with
  // which parts it has (the words, severities and types are one tsquery value): if room.
  const sql = `${f.query === undefined ? PREPARED : PREPARED_IF_ROOM} ${c}
select ${brief ? `c.total_count, c.unread_count, ${BRIEF_NAMES}` : 'c.*, i.*'} from c left join lateral (
  ${items}
) i on true
order by i.list_key desc, i.id desc`;
  return { sql, params };
}

/** A list row: its list position as text, for a page token. */
export type ListedItemRow = InboxItemRow & { cursor_at: string };

/**
 * A brief page (MCP list_inbox): its rows carry the brief columns only, and neither the per-view
 * counts nor a page token's position are read (the statement leaves them out: fewer fields per row
 * for the driver to decode).
 */
export type BriefViewPage = Omit<InboxViewPage<BriefItemRow>, 'views'>;

type PageRow = ListedItemRow & { total_count: number; unread_count: number } & Record<`${ItemState}_${'total' | 'unread'}`, number>;

export async function listInboxView(em: EntityManager, f: InboxViewFilter, limit: number): Promise<InboxViewPage<ListedItemRow>>;
export async function listInboxView(em: EntityManager, f: InboxViewFilter, limit: number, brief: true): Promise<BriefViewPage>;
export async function listInboxView(
  em: EntityManager,
  f: InboxViewFilter,
  limit: number,
  brief = false,
): Promise<InboxViewPage<ListedItemRow> | BriefViewPage> {
  const { sql, params } = pageStatement(await withFromTokens(em, f), limit, brief);
  const rows = await run<PageRow>(em, sql, params);
  const first = rows[0];
  const n = (v: unknown) => Number(v ?? 0);
  const cap = f.query === undefined ? Number.POSITIVE_INFINITY : INBOX_LIMITS.searchCountMax;
  const page: BriefViewPage = {
    total: Math.min(n(first?.total_count), cap),
    unread: Math.min(n(first?.unread_count), cap),
    capped: n(first?.total_count) > cap,
    // An empty page is one row of counts with null item columns (left join).
    rows: rows.filter((r) => r.id !== null),
  };
  if (brief) return page;
  const byState = Object.fromEntries(ITEM_STATES.map((st) => [st, { total: n(first?.[`${st}_total`]), unread: n(first?.[`${st}_unread`]) }])) as Record<
    ItemState,
    ViewCount
  >;
  const all = ITEM_STATES.reduce((a, st) => ({ total: a.total + byState[st].total, unread: a.unread + byState[st].unread }), { total: 0, unread: 0 });
  return { ...page, rows: page.rows as ListedItemRow[], views: { ...byState, all } };
}

/** The caller's own rows among these notification and delivery ids (others: absent), newest first. */
export async function findOwnInboxItems(
  em: EntityManager,
  userId: string,
  refs: { notificationIds: readonly string[]; deliveryIds: readonly string[] },
): Promise<InboxItemRow[]> {
  if (refs.notificationIds.length === 0 && refs.deliveryIds.length === 0) return [];
  return run<InboxItemRow>(
    em,
    // The ids through their own unique indexes, then the owner filter: the work follows the number
    // of ids, never the size of the inbox (the generic plan of `user_id = ? and (id = any(..) or
    // delivery_id = any(..))` walks the user's rows and filters them).
    `${PREPARED} select ${ITEM_COLUMNS} from notifications n ${ITEM_JOINS}
     where n.id in (select id from notifications where id = any(?::uuid[]) union select id from notifications where delivery_id = any(?::uuid[]))
       and n.user_id = ?
     order by n.created_at desc, n.id desc`,
    [pgArray(refs.notificationIds), pgArray(refs.deliveryIds), userId],
  );
}

/** The caller's unread count over the whole inbox (inbox_counters). */
export async function unreadCountOf(em: EntityManager, userId: string): Promise<number> {
  const rows = await run<{ unread: number }>(em, `${PREPARED} select coalesce(sum(unread), 0)::int as unread from inbox_counters where user_id = ?`, [userId]);
  return Number(rows[0]?.unread ?? 0);
}

/**
 * The caller's Inbox-view rows that arrived, came back or changed after `since`, newest first, at
 * most `limit`: new rows through the list index range; changed ones by their updated_at among the
 * Inbox rows (the view a person keeps short by triage).
 */
export async function inboxChangesSince(em: EntityManager, userId: string, since: string, limit: number): Promise<BriefItemRow[]> {
  return run<BriefItemRow>(
    em,
    `${PREPARED} select ${BRIEF_COLUMNS} from notifications n ${BRIEF_JOINS}
     where n.user_id = ? and n.state = 'inbox' and (${LIST_KEY} > ?::timestamptz or n.updated_at > ?::timestamptz)
     order by ${LIST_KEY} desc, n.id desc limit ?::int`,
    [userId, since, since, limit],
  );
}

/** The caller's own Inbox-view rows among these ids (brief columns). */
export async function ownInboxRowsOf(
  em: EntityManager,
  userId: string,
  refs: { notificationIds: readonly string[]; deliveryIds: readonly string[] },
): Promise<BriefItemRow[]> {
  if (refs.notificationIds.length === 0 && refs.deliveryIds.length === 0) return [];
  return run<BriefItemRow>(
    em,
    `${PREPARED} select ${BRIEF_COLUMNS} from notifications n ${BRIEF_JOINS}
     where n.id in (select id from notifications where id = any(?::uuid[]) union select id from notifications where delivery_id = any(?::uuid[]))
       and n.user_id = ? and n.state = 'inbox'
     order by ${LIST_KEY} desc, n.id desc`,
    [pgArray(refs.notificationIds), pgArray(refs.deliveryIds), userId],
  );
}

// Named queries of the cross-type search (SPEC C `search`; What the service does 8: project
// isolation on the server). One statement: a UNION ALL of one branch per searched type, each with
// the caller's visibility IN its WHERE clause (nothing is filtered after loading) and cut to
// `limit`, then merged, ordered and cut again. Matching, score, indexes and the visibility of each
// type (tasks/task-access.ts, feedback.repository.ts as they apply them): agent protocol 16.
import type { EntityManager } from '@mikro-orm/core';
import { likeContains } from '../docs/docs.rules.js';
import { authorShownSql, visibleFeedbackSql } from '../feedback/feedback.repository.js';
import { canSeeAllProjects } from '../projects/project-roles.rules.js';
import { SCORE, SEARCH_LIMITS, type SearchType } from './search.rules.js';

// ---- a small SQL builder: `sql` tagged templates turn values into `?` parameters ----

class Fragment {
  constructor(
    readonly text: string,
    readonly params: readonly unknown[],
  ) {}
}

function sql(strings: TemplateStringsArray, ...values: unknown[]): Fragment {
  let text = strings[0]!;
  const params: unknown[] = [];
  values.forEach((v, i) => {
    if (v instanceof Fragment) {
      text += v.text;
      params.push(...v.params);
    } else {
      text += '?';
      params.push(v);
    }
    text += strings[i + 1]!;
  });
  return new Fragment(text, params);
}

const verbatim = (text: string) => new Fragment(text, []);

function joinSql(parts: readonly Fragment[], sep: string): Fragment {
  return new Fragment(
    parts.map((p) => p.text).join(sep),
    parts.flatMap((p) => p.params),
  );
}

const and = (parts: readonly Fragment[]) =>
  parts.length === 0
    ? verbatim('true')
    : joinSql(
        parts.map((p) => sql`(${p})`),
        ' and ',
      );

// ---- inputs ----

export interface SearchViewer {
  userId: string;
  userRole: string;
}

export interface SearchFilters {
  projectSlug?: string;
  /** Normalised (lower-case). */
  authorEmail?: string;
  since?: string;
  status?: string;
}

export interface SearchRow {
  type: SearchType;
  id: string;
  title: string;
  parent_type: 'task' | 'feedback' | null;
  link_ref: string | null;
  matched_field: string;
  score: number | string;
  created_at: Date | string;
  starts_at: Date | string | null;
  ends_at: Date | string | null;
  field_len: number | string;
  window_start: number | string;
  body_window: string | null;
}

/** Active projects the viewer sees, as a predicate on `p` (projects). */
function visibleProjectSql(viewer: SearchViewer): Fragment {
  if (canSeeAllProjects(viewer.userRole)) return verbatim('p.archived_at is null');
  return sql`p.archived_at is null and p.id in (select m.project_id from project_members m where m.user_id = ${viewer.userId} union select o.id from projects o where o.owner_user_id = ${viewer.userId})`;
}

/** Tasks the viewer sees, over `t` (tasks) left-joined to `p` (its project). */
function visibleTaskSql(viewer: SearchViewer): Fragment {
  return sql`((not t.is_draft and ${visibleProjectSql(viewer)}) or (t.is_draft and t.creator_user_id = ${viewer.userId}))`;
}

/** Feedback the viewer sees, over `f` (feedback): feedback.repository.ts's own predicate (expiry included). */
function feedbackVisibleSql(viewer: SearchViewer, now: Date): Fragment {
  const v = visibleFeedbackSql('f', viewer, now);
  return new Fragment(v.sql, v.params);
}

/** `col` holds the id of a user with this email. */
const authorSql = (col: string, email: string) => sql`${verbatim(col)} in (select u.id from users u where u.email = ${email})`;

// ---- the statement ----

interface Field {
  name: string;
  /** The column expression, e.g. `t.title`. */
  col: string;
  /** Weighted A in the full-text rank and worth SCORE.titleWeight. */
  title?: boolean;
}

interface Branch {
  type: SearchType;
  fields: Field[];
  /** Expressions for id, title, parent type, link reference, created_at. */
  id: string;
  title: string;
  parentType: string;
  linkRef: string;
  createdAt: string;
  /** Meetings: their time (shown in the snippet); null elsewhere. */
  startsAt?: string;
  endsAt?: string;
  from: string;
  where: Fragment[];
}

const ESCAPE = verbatim(`escape '\\'`);

/**
 * One type's branch. The inner query finds the matches (trigram indexes + visibility) and keeps
 * the best SEARCH_LIMITS.rankCandidates of them by (title match, newest); only those get the
 * full-text rank, so a query matching most of a big table costs a bounded amount of ranking.
 */
function branchSql(b: Branch, query: string, pattern: string, limit: number): Fragment {
  const found = (f: Field) => sql`strpos(lower(${verbatim(f.col)}), lower(${query})) > 0`;
  const like = joinSql(
    b.fields.map((f) => sql`lower(${verbatim(f.col)}) like lower(${pattern}) ${ESCAPE}`),
    ' or ',
  );
  const titleField = b.fields.find((f) => f.title);
  const inner = sql`select ${verbatim(`'${b.type}'::text`)} as type, ${verbatim(b.id)} as id, ${verbatim(b.title)} as title,
              ${verbatim(b.parentType)} as parent_type, ${verbatim(b.linkRef)} as link_ref, ${verbatim(b.createdAt)} as created_at,
              ${verbatim(b.startsAt ?? 'null::timestamptz')} as starts_at, ${verbatim(b.endsAt ?? 'null::timestamptz')} as ends_at,
              ${verbatim(b.fields.map((f, i) => `${f.col} as f${i}`).join(', '))}
         from ${verbatim(b.from)}
        where (${like}) and ${and(b.where)}
        order by ${titleField ? sql`${found(titleField)} desc, ` : verbatim('')}created_at desc, id
        limit ${verbatim(String(SEARCH_LIMITS.rankCandidates))}`;

  // Over the candidates `c`, whose fields are c.f0, c.f1...
  const fields = b.fields.map((f, i) => ({ ...f, col: `c.f${i}` }));
  const last = fields[fields.length - 1]!;
  const initial = fields.slice(0, -1);
  const matchedField =
    initial.length === 0
      ? verbatim(`'${last.name}'`)
      : sql`case ${joinSql(
          initial.map((f) => sql`when ${found(f)} then ${verbatim(`'${f.name}'`)}`),
          ' ',
        )} else ${verbatim(`'${last.name}'`)} end`;
  const matchedText =
    initial.length === 0
      ? verbatim(last.col)
      : sql`case ${joinSql(
          initial.map((f) => sql`when ${found(f)} then ${verbatim(f.col)}`),
          ' ',
        )} else ${verbatim(last.col)} end`;
  const cTitle = fields.find((f) => f.title);
  const weight = cTitle
    ? sql`case when ${found(cTitle)} then ${verbatim(String(SCORE.titleWeight))} else ${verbatim(String(SCORE.otherWeight))} end`
    : verbatim(String(SCORE.otherWeight));
  const vector = verbatim(
    fields.map((f) => `setweight(to_tsvector('simple', left(coalesce(${f.col}, ''), ${SEARCH_LIMITS.rankChars})), '${f.title ? 'A' : 'B'}')`).join(' || '),
  );
  return sql`(select c.type, c.id, c.title, c.parent_type, c.link_ref, ${matchedField} as matched_field, ${matchedText} as matched_text,
            round((${weight} + ${verbatim(String(SCORE.rankWeight))} * ts_rank(${vector}, plainto_tsquery('simple', ${query}), 32))::numeric, 4) as score,
            c.created_at, c.starts_at, c.ends_at
       from (${inner}) c
      order by score desc, c.created_at desc, c.id
      limit ${limit})`;
}

/** The branches of one type (comments have two: task and feedback comments); none when the filters exclude the type. */
function branchesFor(type: SearchType, viewer: SearchViewer, f: SearchFilters, now: Date): Branch[] {
  const since = (col: string) => (f.since === undefined ? [] : [sql`${verbatim(col)} >= ${f.since}::timestamptz`]);
  const project = f.projectSlug === undefined ? [] : [sql`p.slug = ${f.projectSlug}`];
  switch (type) {
    case 'task':
      return [
        {
          type,
          fields: [
            { name: 'title', col: 't.title', title: true },
            { name: 'description', col: 't.description' },
          ],
          id: 't.id',
          title: 't.title',
          parentType: 'null::text',
          linkRef: 'coalesce(t.code, t.id::text)',
          createdAt: 't.created_at',
          from: 'tasks t left join projects p on p.id = t.project_id',
          where: [
            visibleTaskSql(viewer),
            ...project,
            ...(f.authorEmail === undefined ? [] : [authorSql('t.creator_user_id', f.authorEmail)]),
            ...since('t.created_at'),
            ...(f.status === undefined ? [] : [sql`t.status = ${f.status}`]),
          ],
        },
      ];
    case 'comment':
      return [
        {
          type,
          fields: [{ name: 'body', col: 'c.body' }],
          id: 'c.id',
          title: `'Comment on ' || coalesce(t.code, 'draft task') || ': ' || t.title`,
          parentType: `'task'::text`,
          linkRef: 'coalesce(t.code, t.id::text)',
          createdAt: 'c.created_at',
          from: 'task_comments c join tasks t on t.id = c.task_id left join projects p on p.id = t.project_id',
          where: [
            visibleTaskSql(viewer),
            ...project,
            ...(f.authorEmail === undefined ? [] : [authorSql('c.author_user_id', f.authorEmail)]),
            ...since('c.created_at'),
            ...(f.status === undefined ? [] : [sql`t.status = ${f.status}`]),
          ],
        },
        {
          type,
          fields: [{ name: 'body', col: 'c.body' }],
          id: 'c.id',
          title: `'Comment on feedback: ' || f.title`,
          parentType: `'feedback'::text`,
          linkRef: 'f.id::text',
          createdAt: 'c.created_at',
          from: 'feedback_comments c join feedback f on f.id = c.feedback_id left join projects p on p.id = f.project_id',
          where: [
            feedbackVisibleSql(viewer, now),
            ...project,
            // The anonymous author's own comments on their feedback are anonymous too.
            ...(f.authorEmail === undefined
              ? []
              : [
                  authorSql('c.author_user_id', f.authorEmail),
                  sql`(not f.is_anonymous or c.author_user_id <> f.author_user_id or f.author_user_id = ${viewer.userId})`,
                ]),
            ...since('c.created_at'),
            ...(f.status === undefined ? [] : [sql`f.status = ${f.status}`]),
          ],
        },
      ];
    case 'notification':
      // Notifications belong to no project; read state is their status.
      if (f.projectSlug !== undefined) return [];
      if (f.status !== undefined && f.status !== 'read' && f.status !== 'unread') return [];
      return [
        {
          type,
          fields: [
            { name: 'title', col: 'n.title', title: true },
            { name: 'summary', col: 'n.summary' },
            { name: 'body', col: 'n.body' },
          ],
          id: 'n.id',
          title: 'n.title',
          parentType: 'null::text',
          linkRef: 'null::text',
          createdAt: 'n.created_at',
          from: 'notifications n',
          where: [
            sql`n.user_id = ${viewer.userId}`,
            ...(f.authorEmail === undefined ? [] : [authorSql('n.actor_user_id', f.authorEmail)]),
            ...since('n.created_at'),
            ...(f.status === undefined ? [] : [verbatim(f.status === 'read' ? 'n.read_at is not null' : 'n.read_at is null')]),
          ],
        },
      ];
    case 'meeting':
      // Meetings have no status.
      if (f.status !== undefined) return [];
      return [
        {
          type,
          fields: [{ name: 'title', col: 'mt.title', title: true }],
          id: 'mt.id',
          title: 'mt.title',
          parentType: 'null::text',
          linkRef: 'null::text',
          createdAt: 'mt.created_at',
          startsAt: 'mt.starts_at',
          endsAt: 'mt.ends_at',
          from: 'meetings mt join projects p on p.id = mt.project_id',
          where: [
            visibleProjectSql(viewer),
            ...project,
            ...(f.authorEmail === undefined ? [] : [authorSql('mt.created_by_user_id', f.authorEmail)]),
            ...since('mt.created_at'),
          ],
        },
      ];
    case 'feedback':
      return [
        {
          type,
          fields: [
            { name: 'title', col: 'f.title', title: true },
            { name: 'body', col: 'f.body' },
          ],
          id: 'f.id',
          title: 'f.title',
          parentType: 'null::text',
          linkRef: 'null::text',
          createdAt: 'f.created_at',
          from: 'feedback f left join projects p on p.id = f.project_id',
          where: [
            feedbackVisibleSql(viewer, now),
            ...project,
            ...(f.authorEmail === undefined ? [] : [authorSql('f.author_user_id', f.authorEmail), new Fragment(authorShownSql('f'), [viewer.userId])]),
            ...since('f.created_at'),
            ...(f.status === undefined ? [] : [sql`f.status = ${f.status}`]),
          ],
        },
      ];
  }
}

/** The SQL of one search (exported for the EXPLAIN test and the unit tests). */
export function searchStatement(
  viewer: SearchViewer,
  types: readonly SearchType[],
  query: string,
  f: SearchFilters,
  limit: number,
  now: Date,
): Fragment | null {
  const pattern = likeContains(query);
  const branches = types.flatMap((t) => branchesFor(t, viewer, f, now)).map((b) => branchSql(b, query, pattern, limit));
  if (branches.length === 0) return null;
  const ctx = SEARCH_LIMITS.snippetContext + 20;
  return sql`select u.type, u.id, u.title, u.parent_type, u.link_ref, u.matched_field, u.score, u.created_at, u.starts_at, u.ends_at,
         length(u.matched_text) as field_len,
         greatest(strpos(lower(u.matched_text), lower(${query})) - ${verbatim(String(ctx))}, 1) as window_start,
         substr(u.matched_text, greatest(strpos(lower(u.matched_text), lower(${query})) - ${verbatim(String(ctx))}, 1), ${verbatim(String(2 * ctx))} + length(${query})) as body_window
    from (${joinSql(branches, '\n    union all\n    ')}) u
   order by u.score desc, u.created_at desc, u.type, u.id
   limit ${limit}`;
}

export async function searchVisible(
  em: EntityManager,
  viewer: SearchViewer,
  types: readonly SearchType[],
  query: string,
  f: SearchFilters,
  limit: number,
  now: Date,
): Promise<SearchRow[]> {
  const stmt = searchStatement(viewer, types, query, f, limit, now);
  if (!stmt) return [];
  return (await em.getConnection().execute(stmt.text, [...stmt.params], 'all', em.getTransactionContext())) as SearchRow[];
}

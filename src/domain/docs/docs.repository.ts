// Named queries of the documents area. Plain SQL that runs on PostgreSQL and on PGlite alike.
// Visibility (SPEC What the service does 8; C list_doc_drafts) is one SQL predicate, used by every
// read and by the page lookup of every write, so a page outside the caller's range is simply absent:
//  - admin, super_admin, assistant: every page;
//  - others: pages of projects they belong to (project_members row or projects.owner_user_id),
//    and of those, drafts only when they wrote them or lead the project (owner or lead). A draft
//    that was archived stays a draft for visibility (archived_from_status).
import type { EntityManager } from '@mikro-orm/core';
import { run } from '../sql.js';
import { randomUUID } from 'node:crypto';
import { DOC_LEAD_ROLES, DOC_LIMITS, likeContains, slugCandidate, type DocActor, type DocKind, type DocStatus } from './docs.rules.js';
import type { PageAddress } from './docs.schemas.js';

type Params = unknown[];

const q = run;

const LEAD_ROLES_SQL = DOC_LEAD_ROLES.map((r) => `'${r}'`).join(', ');

/** `p` = projects, `d` = doc_pages. True when the caller owns or leads the page's project. */
function leadExpr(actor: DocActor): { sql: string; params: Params } {
  return {
    sql: `(p.owner_user_id = ? or exists (select 1 from project_members pl where pl.project_id = d.project_id and pl.user_id = ? and pl.role in (${LEAD_ROLES_SQL})))`,
    params: [actor.userId, actor.userId],
  };
}

/** The visibility predicate over `d` (doc_pages) and `p` (projects). */
export function visibleSql(actor: DocActor): { sql: string; params: Params } {
  if (actor.elevated) return { sql: 'true', params: [] };
  const lead = leadExpr(actor);
  return {
    // `= any(array(...))`: the project ids become one value, so the planner can AND an index on
    // project_id with the search's trigram bitmaps (bench:work) instead of filtering afterwards.
    sql: `(d.project_id = any(array(select pm.project_id from project_members pm where pm.user_id = ? union all select pr.id from projects pr where pr.owner_user_id = ?))
           and (coalesce(d.archived_from_status, d.status) <> 'draft' or d.author_user_id = ? or ${lead.sql}))`,
    params: [actor.userId, actor.userId, actor.userId, ...lead.params],
  };
}

const FROM = `from doc_pages d join doc_spaces s on s.id = d.space_id join projects p on p.id = d.project_id`;

export interface PageRow {
  id: string;
  space_id: string;
  project_id: string;
  parent_page_id: string | null;
  slug: string;
  title: string;
  kind: DocKind;
  status: DocStatus;
  pinned: boolean;
  change_summary: string | null;
  author_user_id: string;
  revision: number;
  updated_at: Date | string;
  published_at: Date | string | null;
  archived_from_status: DocStatus | null;
  archive_root_id: string | null;
  space_slug: string;
  project_slug: string;
  is_lead: boolean;
}

export const isoOf = (v: Date | string): string => (v instanceof Date ? v : new Date(v)).toISOString();

const PAGE_COLUMNS = `d.id, d.space_id, d.project_id, d.parent_page_id, d.slug, d.title, d.kind, d.status, d.pinned, d.change_summary,
  d.author_user_id, d.revision, d.updated_at, d.published_at, d.archived_from_status, d.archive_root_id, s.slug as space_slug, p.slug as project_slug`;

/**
 * One page by address, only when the caller may see it; `lock` takes a row lock for a write.
 * `withBody` adds the body (get_doc, update_doc's revision copy).
 */
export async function findVisiblePage(
  em: EntityManager,
  actor: DocActor,
  address: PageAddress,
  opts: { lock?: boolean; withBody?: boolean } = {},
): Promise<(PageRow & { body?: string }) | undefined> {
  const vis = visibleSql(actor);
  const lead = leadExpr(actor);
  const where = 'pageId' in address ? 'd.id = ?' : 's.slug = ? and d.slug = ?';
  const whereParams = 'pageId' in address ? [address.pageId] : [address.spaceSlug, address.pageSlug];
  const rows = await q<PageRow & { body?: string }>(
    em,
    `select ${PAGE_COLUMNS}${opts.withBody ? ', d.body' : ''}, ${lead.sql} as is_lead ${FROM} where ${where} and ${vis.sql}${opts.lock ? ' for update of d' : ''}`,
    [...lead.params, ...whereParams, ...vis.params],
  );
  return rows[0];
}

export interface ListFilter {
  projectSlug?: string;
  spaceSlug?: string;
  /** Absent: drafts and published pages (archived only when asked for). */
  status?: DocStatus;
  kind?: DocKind;
}

function filterSql(f: ListFilter): { sql: string; params: Params } {
  const parts: string[] = [];
  const params: Params = [];
  if (f.projectSlug !== undefined) {
    parts.push('p.slug = ?');
    params.push(f.projectSlug);
  }
  if (f.spaceSlug !== undefined) {
    parts.push('s.slug = ?');
    params.push(f.spaceSlug);
  }
  if (f.status !== undefined) {
    parts.push('d.status = ?');
    params.push(f.status);
  } else parts.push(`d.status in ('draft', 'published')`);
  if (f.kind !== undefined) {
    parts.push('d.kind = ?');
    params.push(f.kind);
  }
  return { sql: parts.join(' and '), params };
}

export interface ListRow {
  id: string;
  title: string;
  slug: string;
  space_slug: string;
  project_slug: string;
  kind: DocKind;
  status: DocStatus;
  updated_at: Date | string;
}

/** list_docs: pinned first, then most recently updated. */
export async function listVisiblePages(em: EntityManager, actor: DocActor, f: ListFilter, limit: number): Promise<ListRow[]> {
  const vis = visibleSql(actor);
  const flt = filterSql(f);
  return q<ListRow>(
    em,
    `select d.id, d.title, d.slug, s.slug as space_slug, p.slug as project_slug, d.kind, d.status, d.updated_at
       ${FROM} where ${flt.sql} and ${vis.sql}
      order by d.pinned desc, d.updated_at desc, d.id limit ?`,
    [...flt.params, ...vis.params, limit],
  );
}

export interface DraftRow extends ListRow {
  author_name: string;
}

/** list_doc_drafts: the drafts in the caller's range (own; a lead's projects; all for admin and assistant). */
export async function listVisibleDrafts(
  em: EntityManager,
  actor: DocActor,
  f: Pick<ListFilter, 'projectSlug' | 'spaceSlug'>,
  limit: number,
): Promise<DraftRow[]> {
  const vis = visibleSql(actor);
  const flt = filterSql({ ...f, status: 'draft' });
  return q<DraftRow>(
    em,
    `select d.id, d.title, d.slug, s.slug as space_slug, p.slug as project_slug, d.kind, d.status, d.updated_at, u.name as author_name
       ${FROM} join users u on u.id = d.author_user_id where ${flt.sql} and ${vis.sql}
      order by d.updated_at desc, d.id limit ?`,
    [...flt.params, ...vis.params, limit],
  );
}

export interface SearchRow extends ListRow {
  title_pos: number;
  body_window: string | null;
  window_start: number;
  body_len: number;
  rank: number;
}

/**
 * search_docs: case-insensitive substring over title and body (`lower(col) like lower(pattern)`,
 * served by the pg_trgm GIN indexes on lower(title) / lower(body) when the extension exists).
 * Order: title matches first, then full-text rank (title weighted over body, on the first 20k
 * characters of the body to bound the cost), pinned, recency. The body window around the first
 * match comes back with each hit (the snippet is cut from it; the whole body never leaves SQL).
 * `d.search_vector` is that title (A) + body (B) tsvector, stored (Migration20261122080000).
 *
 * The two groups are two reads: the best `limit` title matches (`t`, title index only), then,
 * only when those are fewer than `limit` (a one-time filter: the scan does not start otherwise),
 * the best pages that match in the body but not in the title (`b`). A common word matches many
 * titles, so its pages that match only in the body are neither rechecked nor ranked (bench:work:
 * about half of the rows a common word matches).
 */
export async function searchVisiblePages(em: EntityManager, actor: DocActor, query: string, f: ListFilter, limit: number): Promise<SearchRow[]> {
  const vis = visibleSql(actor);
  const flt = filterSql(f);
  const pattern = likeContains(query);
  const ctxChars = DOC_LIMITS.snippetContext;
  const cols = `d.id, d.title, d.slug, s.slug as space_slug, p.slug as project_slug, d.kind, d.status, d.updated_at, d.pinned,
              ts_rank(d.search_vector, plainto_tsquery('simple', ?)) as rank`;
  const inTitle = `lower(d.title) like lower(?) escape '\\'`;
  const order = 'rank desc, pinned desc, updated_at desc, id';
  return q<SearchRow>(
    em,
    `with t as (
       select ${cols}, strpos(lower(d.title), lower(?)) as title_pos
         ${FROM}
        where ${inTitle} and ${flt.sql} and ${vis.sql}
        order by ${order}
        limit ?
     ), b as (
       select ${cols}, 0 as title_pos
         ${FROM}
        where (select count(*) from t) < ?
          and lower(d.body) like lower(?) escape '\\' and not ${inTitle} and ${flt.sql} and ${vis.sql}
        order by ${order}
        limit ?
     ), hits as (
       select * from t union all select * from b
     )
     select h.id, h.title, h.slug, h.space_slug, h.project_slug, h.kind, h.status, h.updated_at, h.title_pos, h.rank,
            length(b.body) as body_len,
            greatest(strpos(lower(b.body), lower(?)) - ${ctxChars + 20}, 1) as window_start,
            case when h.title_pos > 0 then null
                 else substr(b.body, greatest(strpos(lower(b.body), lower(?)) - ${ctxChars + 20}, 1), ${2 * (ctxChars + 20)} + length(?)) end as body_window
       from hits h join doc_pages b on b.id = h.id
      order by (h.title_pos > 0) desc, h.rank desc, h.pinned desc, h.updated_at desc, h.id
      limit ?`,
    [
      ...[query, query, pattern, ...flt.params, ...vis.params, limit],
      ...[query, limit, pattern, pattern, ...flt.params, ...vis.params, limit],
      query,
      query,
      query,
      limit,
    ],
  );
}

export interface TagCountRow {
  tag: string;
  count: number | string;
}

/** list_tags: tags on drafts and published pages the caller sees, with the number of such pages. */
export async function listVisibleTags(
  em: EntityManager,
  actor: DocActor,
  f: Pick<ListFilter, 'projectSlug' | 'spaceSlug'> & { prefix?: string },
  limit: number,
): Promise<TagCountRow[]> {
  const vis = visibleSql(actor);
  const flt = filterSql(f);
  const prefix = f.prefix === undefined ? '' : ` and t.tag like ? escape '\\'`;
  const prefixParams = f.prefix === undefined ? [] : [`${f.prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`];
  return q<TagCountRow>(
    em,
    `select t.tag, count(*) as count ${FROM} join doc_page_tags t on t.page_id = d.id
      where ${flt.sql} and ${vis.sql}${prefix}
      group by t.tag order by count(*) desc, t.tag limit ?`,
    [...flt.params, ...vis.params, ...prefixParams, limit],
  );
}

/** search_by_tags: pages carrying any (or all) of `tags`. */
export async function searchVisibleByTags(
  em: EntityManager,
  actor: DocActor,
  tags: string[],
  match: 'any' | 'all',
  f: ListFilter,
  limit: number,
): Promise<ListRow[]> {
  const vis = visibleSql(actor);
  const flt = filterSql(f);
  const marks = tags.map(() => '?').join(', ');
  return q<ListRow>(
    em,
    `select d.id, d.title, d.slug, s.slug as space_slug, p.slug as project_slug, d.kind, d.status, d.updated_at
       ${FROM}
      where d.id in (select t.page_id from doc_page_tags t where t.tag in (${marks}) group by t.page_id having count(*) >= ?)
        and ${flt.sql} and ${vis.sql}
      order by d.pinned desc, d.updated_at desc, d.id limit ?`,
    [...tags, match === 'all' ? tags.length : 1, ...flt.params, ...vis.params, limit],
  );
}

export async function tagsOfPages(em: EntityManager, pageIds: string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>(pageIds.map((id) => [id, []]));
  if (pageIds.length === 0) return out;
  const rows = await q<{ page_id: string; tag: string }>(
    em,
    `select page_id, tag from doc_page_tags where page_id in (${pageIds.map(() => '?').join(', ')}) order by tag`,
    pageIds,
  );
  for (const r of rows) out.get(r.page_id)?.push(r.tag);
  return out;
}

export async function setPageTags(em: EntityManager, pageId: string, add: string[], remove: string[], now: Date): Promise<void> {
  if (remove.length > 0) await q(em, `delete from doc_page_tags where page_id = ? and tag in (${remove.map(() => '?').join(', ')})`, [pageId, ...remove]);
  for (const tag of add) await q(em, `insert into doc_page_tags (page_id, tag, created_at) values (?, ?, ?) on conflict do nothing`, [pageId, tag, now]);
}

// ---- projects and spaces ----

export interface ProjectAccess {
  id: string;
  slug: string;
  is_member: boolean;
}

/** An active project by slug with the caller's membership (owner counts). */
export async function findProject(em: EntityManager, slug: string, userId: string): Promise<ProjectAccess | undefined> {
  const rows = await q<ProjectAccess>(
    em,
    `select p.id, p.slug, (p.owner_user_id = ? or exists (select 1 from project_members m where m.project_id = p.id and m.user_id = ?)) as is_member
       from projects p where p.slug = ? and p.archived_at is null`,
    [userId, userId, slug],
  );
  return rows[0];
}

export interface SpaceRow {
  id: string;
  slug: string;
  project_id: string;
  project_slug: string;
  is_member: boolean;
}

export async function findSpace(em: EntityManager, slug: string, userId: string): Promise<SpaceRow | undefined> {
  const rows = await q<SpaceRow>(
    em,
    `select s.id, s.slug, s.project_id, p.slug as project_slug,
            (p.owner_user_id = ? or exists (select 1 from project_members m where m.project_id = p.id and m.user_id = ?)) as is_member
       from doc_spaces s join projects p on p.id = s.project_id where s.slug = ? and p.archived_at is null`,
    [userId, userId, slug],
  );
  return rows[0];
}

/**
 * The project's default space, created on first use with slug `<project-slug>`. Space slugs are
 * unique across projects (they address pages without a project); if another project already holds
 * that slug, `<project-slug>-docs`, `<project-slug>-docs-2`... are tried. Concurrent creators
 * converge on one row (partial unique index on project_id where is_default).
 */
export async function ensureDefaultSpace(
  em: EntityManager,
  project: { id: string; slug: string },
  userId: string,
  now: Date,
): Promise<{ id: string; slug: string; created: boolean }> {
  const existing = async () =>
    (await q<{ id: string; slug: string }>(em, `select id, slug from doc_spaces where project_id = ? and is_default`, [project.id]))[0];
  const found = await existing();
  if (found) return { ...found, created: false };
  for (let n = 0; n < 20; n++) {
    const slug = n === 0 ? project.slug : slugCandidate(`${project.slug}-docs`, n, DOC_LIMITS.spaceSlug);
    const inserted = await q<{ id: string; slug: string }>(
      em,
      `insert into doc_spaces (id, project_id, slug, name, is_default, created_by_user_id, created_at) values (?, ?, ?, ?, true, ?, ?) on conflict do nothing returning id, slug`,
      [randomUUID(), project.id, slug, project.slug, userId, now],
    );
    if (inserted[0]) return { ...inserted[0], created: true };
    const raced = await existing();
    if (raced) return { ...raced, created: false };
  }
  throw new Error(`could not allocate a default space slug for project ${project.slug}`);
}

// ---- page writes ----

export interface NewPage {
  spaceId: string;
  projectId: string;
  parentPageId: string | null;
  title: string;
  body: string;
  kind: DocKind;
  pinned: boolean;
  changeSummary: string | null;
  authorUserId: string;
  now: Date;
}

/** Inserts a draft with exactly `slug`; undefined when the slug is taken in the space. */
export async function insertDraft(em: EntityManager, page: NewPage, slug: string): Promise<string | undefined> {
  const rows = await q<{ id: string }>(
    em,
    `insert into doc_pages (id, space_id, project_id, parent_page_id, slug, title, body, kind, status, pinned, change_summary, author_user_id, revision, created_at, updated_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, 'draft', ?, ?, ?, 1, ?, ?) on conflict do nothing returning id`,
    [
      randomUUID(),
      page.spaceId,
      page.projectId,
      page.parentPageId,
      slug,
      page.title,
      page.body,
      page.kind,
      page.pinned,
      page.changeSummary,
      page.authorUserId,
      page.now,
      page.now,
    ],
  );
  return rows[0]?.id;
}

/** Slugs in the space equal to `base` or of the form `base-<n>` (to pick the next free one). */
export async function slugsLike(em: EntityManager, spaceId: string, base: string): Promise<Set<string>> {
  const rows = await q<{ slug: string }>(em, `select slug from doc_pages where space_id = ? and (slug = ? or slug like ? escape '\\')`, [
    spaceId,
    base,
    `${base.replace(/[\\%_]/g, (c) => `\\${c}`)}-%`,
  ]);
  return new Set(rows.map((r) => r.slug));
}

export interface PagePatch {
  title?: string;
  body?: string;
  kind?: DocKind;
  parentPageId?: string | null;
  pinned?: boolean;
  changeSummary?: string | null;
}

const PATCH_COLUMNS: Record<keyof PagePatch, string> = {
  title: 'title',
  body: 'body',
  kind: 'kind',
  parentPageId: 'parent_page_id',
  pinned: 'pinned',
  changeSummary: 'change_summary',
};

export async function updatePage(em: EntityManager, pageId: string, patch: PagePatch, now: Date, opts: { bumpRevision?: boolean } = {}): Promise<void> {
  const sets: string[] = [];
  const params: Params = [];
  for (const [k, col] of Object.entries(PATCH_COLUMNS) as [keyof PagePatch, string][]) {
    if (patch[k] === undefined) continue;
    sets.push(`${col} = ?`);
    params.push(patch[k]);
  }
  sets.push('updated_at = ?');
  params.push(now);
  if (opts.bumpRevision) sets.push('revision = revision + 1');
  await q(em, `update doc_pages set ${sets.join(', ')} where id = ?`, [...params, pageId]);
}

/** update_doc keeps the replaced version: revision row `n` holds the page as it was at revision n. */
export async function insertRevision(
  em: EntityManager,
  page: { id: string; revision: number; title: string; body: string; kind: string; change_summary: string | null },
  editedBy: string,
  now: Date,
): Promise<void> {
  await q(
    em,
    `insert into doc_page_revisions (id, page_id, revision, title, body, kind, change_summary, edited_by_user_id, created_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [randomUUID(), page.id, page.revision, page.title, page.body, page.kind, page.change_summary, editedBy, now],
  );
}

export async function publishPage(em: EntityManager, pageId: string, now: Date): Promise<void> {
  await q(em, `update doc_pages set status = 'published', published_at = ?, updated_at = ? where id = ? and status = 'draft'`, [now, now, pageId]);
}

/**
 * Archives the page and every draft or published page below it in one statement; each keeps
 * the status it had (restore_doc puts it back) and the id of the page whose archiving took it.
 * Pages already archived keep their own archive record. Returns how many pages changed.
 */
export async function archiveSubtree(em: EntityManager, rootId: string, now: Date): Promise<number> {
  const rows = await q<{ id: string }>(
    em,
    `with recursive sub(id, depth) as (
       select id, 1 from doc_pages where id = ?
       union all
       select c.id, sub.depth + 1 from doc_pages c join sub on c.parent_page_id = sub.id where sub.depth < ${DOC_LIMITS.maxDepth + 5})
     update doc_pages d set archived_from_status = d.status, status = 'archived', archived_at = ?, archive_root_id = ?, updated_at = ?
      where d.id in (select id from sub) and d.status in ('draft', 'published')
     returning d.id`,
    [rootId, now, rootId, now],
  );
  return rows.length;
}

/** Undoes one archive_doc: every page it archived goes back to the status it had. */
export async function restoreArchived(em: EntityManager, rootId: string, now: Date): Promise<number> {
  const rows = await q<{ id: string }>(
    em,
    `update doc_pages set status = archived_from_status, archived_from_status = null, archived_at = null, archive_root_id = null, updated_at = ?
      where archive_root_id = ? and status = 'archived' returning id`,
    [now, rootId],
  );
  return rows.length;
}

/** The parent candidate (visible to the caller) with its ancestors' ids, nearest first, itself included. */
export async function ancestorsOf(em: EntityManager, pageId: string): Promise<string[]> {
  const rows = await q<{ id: string }>(
    em,
    `with recursive up(id, parent_page_id, depth) as (
       select id, parent_page_id, 1 from doc_pages where id = ?
       union all
       select d.id, d.parent_page_id, up.depth + 1 from doc_pages d join up on d.id = up.parent_page_id where up.depth < ${DOC_LIMITS.maxDepth + 5})
     select id from up order by depth`,
    [pageId],
  );
  return rows.map((r) => r.id);
}

/** Levels in the subtree rooted at `pageId` (1 for a leaf), bounded just past the limit. */
export async function subtreeHeight(em: EntityManager, pageId: string): Promise<number> {
  const rows = await q<{ height: number | string }>(
    em,
    `with recursive sub(id, depth) as (
       select id, 1 from doc_pages where id = ?
       union all
       select c.id, sub.depth + 1 from doc_pages c join sub on c.parent_page_id = sub.id where sub.depth < ${DOC_LIMITS.maxDepth + 5})
     select max(depth) as height from sub`,
    [pageId],
  );
  return Number(rows[0]?.height ?? 1);
}

export async function parentStatus(em: EntityManager, pageId: string): Promise<DocStatus | undefined> {
  const rows = await q<{ status: DocStatus }>(em, `select status from doc_pages where id = ?`, [pageId]);
  return rows[0]?.status;
}

// Pure rules of the documents area (SPEC "Document states", C doc tools, "Agent token scopes"
// read:docs / write:docs:*): kinds, statuses, slugs, tags, tree limits, who may do what, snippets.
// No database and no I/O here; docs.repository.ts holds the SQL.
import { DOC_LIMITS } from './docs.limits.js';

export const DOC_KINDS = ['page', 'guide', 'runbook', 'decision', 'note'] as const;
export type DocKind = (typeof DOC_KINDS)[number];
export const DEFAULT_DOC_KIND: DocKind = 'page';

export const DOC_STATUSES = ['draft', 'published', 'archived'] as const;
export type DocStatus = (typeof DOC_STATUSES)[number];

export { DOC_LIMITS };

/** Page and space slugs: lowercase letters, digits and single dashes. */
export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** Roles that see every project's documents (SPEC What the service does 8 + users.entity roles). */
const ELEVATED_ROLES: ReadonlySet<string> = new Set(['admin', 'super_admin', 'assistant']);
export const isElevatedRole = (role: string): boolean => ELEVATED_ROLES.has(role);

/**
 * Project roles that count as "lead" for documents: publish, archive, restore, update published
 * pages, and see other authors' drafts. `tech_lead` is a member here (the spec names only leads).
 */
export const DOC_LEAD_ROLES = ['owner', 'lead'] as const;

/** A title turned into a slug; `page` when nothing usable is left (e.g. a title of only CJK). */
export function slugFromTitle(title: string, max: number = DOC_LIMITS.slug): string {
  const base = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  const cut = base.slice(0, max).replace(/-+$/g, '');
  return cut === '' ? 'page' : cut;
}

/** `base`, `base-2`, `base-3`... within `max` characters (the base is shortened, never the suffix). */
export function slugCandidate(base: string, n: number, max: number = DOC_LIMITS.slug): string {
  if (n <= 1) return base.slice(0, max);
  const suffix = `-${n}`;
  return `${base.slice(0, max - suffix.length).replace(/-+$/g, '')}${suffix}`;
}

/** Tags are compared case-insensitively: trimmed, lowercased, inner whitespace as one dash. */
export function normalizeTag(raw: string): string {
  return raw.trim().toLowerCase().replace(/\s+/g, '-');
}
export const TAG_PATTERN = /^[\p{L}\p{N}][\p{L}\p{N}_.:/-]*$/u;

/** Normalised, de-duplicated, first occurrence order. */
export function normalizeTags(raw: readonly string[]): string[] {
  return [...new Set(raw.map(normalizeTag))];
}

export type TagMode = 'append' | 'replace';

/** The page's tags after tag_doc (`append` keeps existing ones; `replace` sets exactly `tags`). */
export function applyTagChange(current: readonly string[], tags: readonly string[], mode: TagMode): { tags: string[]; added: string[]; removed: string[] } {
  const next = mode === 'replace' ? [...tags] : [...current, ...tags.filter((t) => !current.includes(t))];
  const uniq = [...new Set(next)].sort();
  return { tags: uniq, added: uniq.filter((t) => !current.includes(t)), removed: current.filter((t) => !uniq.includes(t)).sort() };
}

/** The page's tags after untag_doc. */
export function applyUntag(current: readonly string[], remove: readonly string[] | 'all'): { tags: string[]; removed: string[] } {
  if (remove === 'all') return { tags: [], removed: [...current].sort() };
  return { tags: current.filter((t) => !remove.includes(t)).sort(), removed: current.filter((t) => remove.includes(t)).sort() };
}

/** The caller as seen by document rules. */
export interface DocActor {
  userId: string;
  /** admin, super_admin or assistant: every project, every draft. */
  elevated: boolean;
}

/** What the caller is to one page (from the page row and the project membership). */
export interface PageRelation {
  authorUserId: string;
  status: DocStatus;
  /** owner or lead of the page's project. */
  isLead: boolean;
}

/** publish_doc_draft, archive_doc, restore_doc, update_doc: author, admin, assistant or lead. */
export function mayModerate(actor: DocActor, page: PageRelation): boolean {
  return actor.elevated || page.isLead || page.authorUserId === actor.userId;
}

/** update_doc_draft: only the author edits a draft (SPEC Document states). */
export function mayEditDraft(actor: DocActor, page: PageRelation): boolean {
  return page.authorUserId === actor.userId;
}

/**
 * tag_doc / untag_doc need the scope matching the page's status (SPEC C tag tools); the runner
 * only checks that one of the two is held. Archived pages are restored first (null: no scope fits).
 */
export function tagScopeFor(status: DocStatus): 'write:docs:draft' | 'write:docs:publish' | null {
  return status === 'draft' ? 'write:docs:draft' : status === 'published' ? 'write:docs:publish' : null;
}

/**
 * Moving a page (with a subtree `subtreeHeight` levels tall, 1 for a leaf) under a parent at
 * depth `parentDepth` (1 for a root page): the deepest page must stay within DOC_LIMITS.maxDepth.
 */
export function depthAfterMove(parentDepth: number, subtreeHeight: number): number {
  return parentDepth + subtreeHeight;
}

/** `${publicBaseUrl}/docs/<space_slug>/<page_slug>` (absolute). */
export function docUrl(publicBaseUrl: string, spaceSlug: string, pageSlug: string): string {
  return `${publicBaseUrl}/docs/${encodeURIComponent(spaceSlug)}/${encodeURIComponent(pageSlug)}`;
}

/** `%` `_` and `\` taken literally in a LIKE pattern with `escape '\'`. */
export function likeContains(q: string): string {
  return `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * A one-line snippet around the first case-insensitive occurrence of `query` in `text` (which
 * may itself be a window cut from a longer field: `cutBefore` / `cutAfter` say whether text was
 * dropped on either side). Whitespace runs become one space; cuts are marked with an ellipsis.
 */
export function snippetAround(text: string, query: string, opts: { context?: number; cutBefore?: boolean; cutAfter?: boolean } = {}): string {
  const context = opts.context ?? DOC_LIMITS.snippetContext;
  const at = text.toLowerCase().indexOf(query.toLowerCase());
  let start = 0;
  let end = text.length;
  if (at >= 0) {
    start = Math.max(0, at - context);
    end = Math.min(text.length, at + query.length + context);
  } else {
    end = Math.min(text.length, 2 * context + query.length);
  }
  // Prefer not to cut inside a word when there is room.
  if (start > 0) {
    const sp = text.lastIndexOf(' ', start);
    if (sp >= 0 && start - sp <= 15 && (at < 0 || sp < at)) start = sp + 1;
  }
  if (end < text.length) {
    const sp = text.indexOf(' ', end);
    if (sp >= 0 && sp - end <= 15) end = sp;
  }
  const core = text.slice(start, end).replace(/\s+/g, ' ').trim();
  const before = start > 0 || opts.cutBefore ? '…' : '';
  const after = end < text.length || opts.cutAfter ? '…' : '';
  return `${before}${core}${after}`;
}

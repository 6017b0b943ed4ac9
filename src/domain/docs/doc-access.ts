// What every document operation shares: the caller as a DocActor, the visible-page lookup
// (absent or out of range = NOT_FOUND, never FORBIDDEN: another project's page id reveals
// nothing), the parent checks, the per-status scope check of the tag tools, and the audit row.
import type { EntityManager } from '@mikro-orm/core';
import type { OpContext } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { recordAudit } from '../audit/audit.js';
import { DomainError, notFound } from '../errors.js';
import { hasScope } from '../tokens/scopes.rules.js';
import { ancestorsOf, findVisiblePage, subtreeHeight, type PageRow } from './docs.repository.js';
import { DOC_LIMITS, depthAfterMove, docUrl, isElevatedRole, type DocActor } from './docs.rules.js';
import type { PageAddress } from './docs.schemas.js';

export const actorOf = (p: AgentPrincipal): DocActor => ({ userId: p.userId, elevated: isElevatedRole(p.userRole) });

export async function requirePage(
  em: EntityManager,
  actor: DocActor,
  address: PageAddress,
  opts: { lock?: boolean; withBody?: boolean } = {},
): Promise<PageRow & { body?: string }> {
  const page = await findVisiblePage(em, actor, address, opts);
  if (!page) throw notFound('document');
  return page;
}

export function pageRef(page: Pick<PageRow, 'id' | 'slug' | 'space_slug' | 'project_slug'>, publicBaseUrl: string) {
  return {
    page_id: page.id,
    slug: page.slug,
    space_slug: page.space_slug,
    project_slug: page.project_slug,
    url: docUrl(publicBaseUrl, page.space_slug, page.slug),
  };
}

const invalid = (code: string, field: string, message: string) =>
  new DomainError('validation', message, { code, issues: [{ field, code, message }], extra: { field } });

/**
 * A new parent for page `pageId` (undefined for a page being created) in space `spaceId`:
 * visible to the caller, in the same space, not archived, not the page or one of its
 * descendants, and the deepest page stays within DOC_LIMITS.maxDepth levels.
 */
export async function checkParent(em: EntityManager, actor: DocActor, spaceId: string, parentId: string, pageId?: string): Promise<void> {
  const parent = await findVisiblePage(em, actor, { pageId: parentId });
  if (!parent) throw new DomainError('not_found', 'parent page not found', { code: 'not_found', extra: { field: 'parent_page_id' } });
  if (parent.space_id !== spaceId) throw invalid('parent_other_space', 'parent_page_id', 'the parent page must be in the same space');
  if (parent.status === 'archived')
    throw new DomainError('conflict', 'the parent page is archived; restore it first', { code: 'parent_archived', extra: { field: 'parent_page_id' } });
  const ancestors = await ancestorsOf(em, parentId);
  if (pageId !== undefined && ancestors.includes(pageId)) {
    throw invalid(
      'parent_cycle',
      'parent_page_id',
      parentId === pageId ? 'a page cannot be its own parent' : 'the parent page is below this page: that would make a cycle',
    );
  }
  const height = pageId === undefined ? 1 : await subtreeHeight(em, pageId);
  const depth = depthAfterMove(ancestors.length, height);
  if (depth > DOC_LIMITS.maxDepth) {
    throw invalid('too_deep', 'parent_page_id', `pages nest at most ${DOC_LIMITS.maxDepth} levels deep; this parent would put a page at level ${depth}`);
  }
}

/** The exact scope a status needs (tag tools): the runner only checked that one of the alternatives is held. */
export function requireScope(principal: AgentPrincipal, scope: string): void {
  if (!hasScope(principal.scopes, [scope])) {
    throw new DomainError('forbidden', `missing scope: ${scope}`, { code: 'missing_scope', extra: { required_scope: scope } });
  }
}

export const refused = (message: string) => new DomainError('forbidden', message, { code: 'permission_denied' });

export const DOC_AUDIT = {
  draftCreated: 'docs.draft.created',
  draftUpdated: 'docs.draft.updated',
  published: 'docs.page.published',
  updated: 'docs.page.updated',
  archived: 'docs.page.archived',
  restored: 'docs.page.restored',
  tagged: 'docs.page.tagged',
  untagged: 'docs.page.untagged',
  spaceCreated: 'docs.space.created',
} as const;

/** SPEC C Audit: source mcp, the tool name and an input summary (ids, slugs, field names, counts; never a body or title). */
export function auditDocWrite(
  em: EntityManager,
  ctx: OpContext<AgentPrincipal>,
  tool: string,
  action: string,
  target: { type?: string; id: string },
  summary: Record<string, unknown>,
): void {
  recordAudit(em, ctx, {
    action,
    actorUserId: ctx.principal.userId,
    tokenId: ctx.principal.tokenId,
    targetType: target.type ?? 'doc_page',
    targetId: target.id,
    summary: { tool, ...summary },
  });
}

/** The names of the fields a write changed (for the audit summary). */
export const changedFields = (input: Record<string, unknown>, keys: readonly string[]): string[] => keys.filter((k) => input[k] !== undefined);

// `tag_doc` (SPEC C write tools): adds tags to a document (`mode` append, the default) or sets
// exactly these tags (`replace`). Scope write:docs:draft for a draft, write:docs:publish for a
// published page; the runner accepts either (a requirement is a list of alternatives) and the
// handler checks the one the page's status needs. Archived documents are restored first
// (CONFLICT). Callers: those who may see the draft (its author, admin, assistant, project owner
// or lead), and for published pages the callers of update_doc.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { DomainError } from '../errors.js';
import { DOC_AUDIT, actorOf, auditDocWrite, pageRef, refused, requirePage, requireScope } from './doc-access.js';
import { setPageTags, tagsOfPages, type PageRow } from './docs.repository.js';
import { DOC_LIMITS, applyTagChange, mayModerate, normalizeTags, tagScopeFor, type DocActor } from './docs.rules.js';
import { PageRef, addressOf, pageAddressFields, pageAddressRule, statusField, tagsField } from './docs.schemas.js';

export const TAG_TOOL_SCOPES = ['write:docs:draft', 'write:docs:publish'] as const;

export const TagDocInput = z
  .strictObject({ ...pageAddressFields, tags: tagsField, mode: z.enum(['append', 'replace']).default('append') })
  .superRefine(pageAddressRule);
type Input = z.infer<typeof TagDocInput>;

export const TagDocOutput = PageRef.extend({ status: statusField, tags: z.array(z.string()), added: z.array(z.string()), removed: z.array(z.string()) });
export type TagDocResult = z.infer<typeof TagDocOutput>;

/** Shared by tag_doc and untag_doc: not archived, the status's scope, a caller who may change the page. */
export function checkTaggable(principal: AgentPrincipal, actor: DocActor, page: PageRow): void {
  const scope = tagScopeFor(page.status);
  if (scope === null) throw new DomainError('conflict', 'the document is archived; restore it first (restore_doc)', { code: 'archived' });
  requireScope(principal, scope);
  if (!mayModerate(actor, { authorUserId: page.author_user_id, status: page.status, isLead: page.is_lead })) {
    throw refused('only the author, an admin, an assistant or a project lead may change the tags of a published document');
  }
}

export const tagDoc = defineOperation<Input, TagDocResult, AgentPrincipal>({
  name: 'docs.tag',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: TAG_TOOL_SCOPES,
  idempotent: true,
  input: TagDocInput,
  writes: true,
  handler: async (input, ctx) => {
    const { em } = ctx;
    const actor = actorOf(ctx.principal);
    const page = await requirePage(em, actor, addressOf(input), { lock: true });
    checkTaggable(ctx.principal, actor, page);
    const current = (await tagsOfPages(em, [page.id])).get(page.id) ?? [];
    const change = applyTagChange(current, normalizeTags(input.tags), input.mode);
    if (change.tags.length > DOC_LIMITS.tagsPerPage) {
      throw new DomainError('validation', `a document carries at most ${DOC_LIMITS.tagsPerPage} tags`, {
        code: 'too_many_tags',
        issues: [{ field: 'tags', code: 'too_many', message: `a document carries at most ${DOC_LIMITS.tagsPerPage} tags` }],
      });
    }
    await setPageTags(em, page.id, change.added, change.removed, ctx.clock.now());
    if (change.added.length + change.removed.length > 0) {
      auditDocWrite(
        em,
        ctx,
        'tag_doc',
        DOC_AUDIT.tagged,
        { id: page.id },
        { project_slug: page.project_slug, space_slug: page.space_slug, slug: page.slug, mode: input.mode, added: change.added, removed: change.removed },
      );
    }
    return { ...pageRef(page, ctx.config.publicBaseUrl), status: page.status, tags: change.tags, added: change.added, removed: change.removed };
  },
});

// `archive_doc` (SPEC C write tools, scope write:docs:publish; Document states draft or published
// -> archived): same callers as publish_doc_draft. Archiving a page archives its whole subtree
// (drafts and published pages below it, whoever wrote them); `archived_count` counts every page
// this call archived, the page itself included. Archiving an archived page changes nothing
// (archived_count 0). restore_doc undoes it.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { DOC_AUDIT, actorOf, auditDocWrite, pageRef, refused, requirePage } from './doc-access.js';
import { archiveSubtree } from './docs.repository.js';
import { mayModerate } from './docs.rules.js';
import { PageRef, addressOf, pageAddressFields, pageAddressRule } from './docs.schemas.js';

export const ArchiveDocInput = z.strictObject(pageAddressFields).superRefine(pageAddressRule);
type Input = z.infer<typeof ArchiveDocInput>;

export const ArchiveDocOutput = PageRef.extend({ status: z.literal('archived'), archived_count: z.number().int().min(0) });
export type ArchiveDocResult = z.infer<typeof ArchiveDocOutput>;

export const archiveDoc = defineOperation<Input, ArchiveDocResult, AgentPrincipal>({
  name: 'docs.archive',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['write:docs:publish'],
  idempotent: true,
  input: ArchiveDocInput,
  writes: true,
  handler: async (input, ctx) => {
    const { em } = ctx;
    const actor = actorOf(ctx.principal);
    const page = await requirePage(em, actor, addressOf(input), { lock: true });
    if (!mayModerate(actor, { authorUserId: page.author_user_id, status: page.status, isLead: page.is_lead })) {
      throw refused('only the author, an admin, an assistant or a project lead may archive');
    }
    const archived = page.status === 'archived' ? 0 : await archiveSubtree(em, page.id, ctx.clock.now());
    if (archived > 0) {
      auditDocWrite(
        em,
        ctx,
        'archive_doc',
        DOC_AUDIT.archived,
        { id: page.id },
        { project_slug: page.project_slug, space_slug: page.space_slug, slug: page.slug, from_status: page.status, archived_count: archived },
      );
    }
    return { ...pageRef(page, ctx.config.publicBaseUrl), status: 'archived' as const, archived_count: archived };
  },
});

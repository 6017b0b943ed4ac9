// `restore_doc` (not in the spec's tables: SPEC "Restoring an archived document: not shown"; the
// tag tools need archived documents restored first). Undoes one archive_doc: the page and every
// page that call archived with it return to the status each had (draft or published). Same
// callers and scope as archive_doc. A page archived together with an ancestor is restored by
// restoring that ancestor; a page whose parent is archived waits for the parent (CONFLICT).
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { DomainError } from '../errors.js';
import { DOC_AUDIT, actorOf, auditDocWrite, pageRef, refused, requirePage } from './doc-access.js';
import { parentStatus, restoreArchived } from './docs.repository.js';
import { mayModerate } from './docs.rules.js';
import { PageRef, addressOf, pageAddressFields, pageAddressRule } from './docs.schemas.js';

export const RestoreDocInput = z.strictObject(pageAddressFields).superRefine(pageAddressRule);
type Input = z.infer<typeof RestoreDocInput>;

export const RestoreDocOutput = PageRef.extend({ status: z.enum(['draft', 'published']), restored_count: z.number().int().min(1) });
export type RestoreDocResult = z.infer<typeof RestoreDocOutput>;

export const restoreDoc = defineOperation<Input, RestoreDocResult, AgentPrincipal>({
  name: 'docs.restore',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['write:docs:publish'],
  idempotent: true,
  input: RestoreDocInput,
  writes: true,
  handler: async (input, ctx) => {
    const { em } = ctx;
    const actor = actorOf(ctx.principal);
    const page = await requirePage(em, actor, addressOf(input), { lock: true });
    if (!mayModerate(actor, { authorUserId: page.author_user_id, status: page.status, isLead: page.is_lead })) {
      throw refused('only the author, an admin, an assistant or a project lead may restore');
    }
    if (page.status !== 'archived') throw new DomainError('conflict', `the document is ${page.status}, not archived`, { code: 'not_archived' });
    if (page.archive_root_id !== null && page.archive_root_id !== page.id) {
      throw new DomainError(
        'conflict',
        `the document was archived with its ancestor ${page.archive_root_id}; restore that page and this one comes back with it`,
        {
          code: 'archived_with_ancestor',
          extra: { archive_root_id: page.archive_root_id },
        },
      );
    }
    if (page.parent_page_id !== null && (await parentStatus(em, page.parent_page_id)) === 'archived') {
      throw new DomainError('conflict', 'the parent page is archived; restore it first', { code: 'parent_archived' });
    }
    const restoredTo = page.archived_from_status === 'draft' ? 'draft' : 'published';
    const restored = await restoreArchived(em, page.id, ctx.clock.now());
    auditDocWrite(
      em,
      ctx,
      'restore_doc',
      DOC_AUDIT.restored,
      { id: page.id },
      { project_slug: page.project_slug, space_slug: page.space_slug, slug: page.slug, to_status: restoredTo, restored_count: restored },
    );
    return { ...pageRef(page, ctx.config.publicBaseUrl), status: restoredTo, restored_count: restored };
  },
});

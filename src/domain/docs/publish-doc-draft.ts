// `publish_doc_draft` (SPEC C write tools, scope write:docs:publish; Document states draft ->
// published): by the author, an admin, super admin or assistant, or an owner or lead of the
// project, "as in the web interface". Only drafts publish (CONFLICT otherwise).
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { DomainError } from '../errors.js';
import { DOC_AUDIT, actorOf, auditDocWrite, pageRef, refused, requirePage } from './doc-access.js';
import { publishPage } from './docs.repository.js';
import { mayModerate } from './docs.rules.js';
import { PageRef, addressOf, pageAddressFields, pageAddressRule } from './docs.schemas.js';

export const PublishDocDraftInput = z.strictObject(pageAddressFields).superRefine(pageAddressRule);
type Input = z.infer<typeof PublishDocDraftInput>;

export const PublishDocDraftOutput = PageRef.extend({ status: z.literal('published'), published_at: z.string() });
export type PublishDocDraftResult = z.infer<typeof PublishDocDraftOutput>;

export const publishDocDraft = defineOperation<Input, PublishDocDraftResult, AgentPrincipal>({
  name: 'docs.publish',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['write:docs:publish'],
  idempotent: true,
  input: PublishDocDraftInput,
  writes: true,
  handler: async (input, ctx) => {
    const { em } = ctx;
    const actor = actorOf(ctx.principal);
    const page = await requirePage(em, actor, addressOf(input), { lock: true });
    if (!mayModerate(actor, { authorUserId: page.author_user_id, status: page.status, isLead: page.is_lead })) {
      throw refused('only the author, an admin, an assistant or a project lead may publish');
    }
    if (page.status !== 'draft') throw new DomainError('conflict', `the document is ${page.status}; only drafts are published`, { code: 'not_a_draft' });
    const now = ctx.clock.now();
    await publishPage(em, page.id, now);
    auditDocWrite(
      em,
      ctx,
      'publish_doc_draft',
      DOC_AUDIT.published,
      { id: page.id },
      { project_slug: page.project_slug, space_slug: page.space_slug, slug: page.slug, author_user_id: page.author_user_id },
    );
    return { ...pageRef(page, ctx.config.publicBaseUrl), status: 'published' as const, published_at: now.toISOString() };
  },
});

// `untag_doc` (SPEC C write tools): removes `tags`, or every tag with `remove_all: true`; exactly
// one of the two (neither is rejected, SPEC C). Scopes, callers and the archived rule as tag_doc.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { DOC_AUDIT, actorOf, auditDocWrite, pageRef, requirePage } from './doc-access.js';
import { setPageTags, tagsOfPages } from './docs.repository.js';
import { applyUntag, normalizeTags } from './docs.rules.js';
import { PageRef, addressOf, pageAddressFields, pageAddressRule, statusField, tagsField } from './docs.schemas.js';
import { TAG_TOOL_SCOPES, checkTaggable } from './tag-doc.js';

export const UntagDocInput = z.strictObject({ ...pageAddressFields, tags: tagsField.optional(), remove_all: z.boolean().optional() }).superRefine((v, c) => {
  pageAddressRule(v, c);
  const all = v.remove_all === true;
  if (v.tags === undefined && !all)
    c.addIssue({ code: 'custom', path: ['tags'], message: 'give tags to remove, or remove_all: true', params: { code: 'required' } });
  if (v.tags !== undefined && all)
    c.addIssue({ code: 'custom', path: ['remove_all'], message: 'give tags or remove_all: true, not both', params: { code: 'exactly_one' } });
});
type Input = z.infer<typeof UntagDocInput>;

export const UntagDocOutput = PageRef.extend({ status: statusField, tags: z.array(z.string()), removed: z.array(z.string()) });
export type UntagDocResult = z.infer<typeof UntagDocOutput>;

export const untagDoc = defineOperation<Input, UntagDocResult, AgentPrincipal>({
  name: 'docs.untag',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: TAG_TOOL_SCOPES,
  idempotent: true,
  input: UntagDocInput,
  writes: true,
  handler: async (input, ctx) => {
    const { em } = ctx;
    const actor = actorOf(ctx.principal);
    const page = await requirePage(em, actor, addressOf(input), { lock: true });
    checkTaggable(ctx.principal, actor, page);
    const current = (await tagsOfPages(em, [page.id])).get(page.id) ?? [];
    const change = applyUntag(current, input.remove_all === true ? 'all' : normalizeTags(input.tags ?? []));
    await setPageTags(em, page.id, [], change.removed, ctx.clock.now());
    if (change.removed.length > 0) {
      auditDocWrite(
        em,
        ctx,
        'untag_doc',
        DOC_AUDIT.untagged,
        { id: page.id },
        { project_slug: page.project_slug, space_slug: page.space_slug, slug: page.slug, remove_all: input.remove_all === true, removed: change.removed },
      );
    }
    return { ...pageRef(page, ctx.config.publicBaseUrl), status: page.status, tags: change.tags, removed: change.removed };
  },
});

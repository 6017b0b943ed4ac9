// `update_doc_draft` (SPEC C write tools, scope write:docs:draft; Document states draft -> draft):
// only the author edits a draft. A published page is changed with update_doc, an archived one
// restored first (CONFLICT). `parent_page_id: null` moves the page to the top of its space.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { DomainError } from '../errors.js';
import { DOC_AUDIT, actorOf, auditDocWrite, changedFields, checkParent, pageRef, refused, requirePage } from './doc-access.js';
import { updatePage } from './docs.repository.js';
import { mayEditDraft } from './docs.rules.js';
import { PageRef, addressOf, bodyField, changeSummaryField, kindField, pageAddressFields, pageAddressRule, titleField } from './docs.schemas.js';

/** The editable fields of update_doc_draft and update_doc. */
export const pageEditFields = {
  title: titleField.optional(),
  body: bodyField.optional(),
  kind: kindField.optional(),
  parent_page_id: z.uuid({ error: 'must be a UUID' }).nullable().optional(),
  pinned: z.boolean().optional(),
  change_summary: changeSummaryField.nullable().optional(),
};
export const EDIT_KEYS = ['title', 'body', 'kind', 'parent_page_id', 'pinned', 'change_summary'] as const;

export function atLeastOneEdit(v: Record<string, unknown>, c: z.RefinementCtx): void {
  if (EDIT_KEYS.every((k) => v[k] === undefined))
    c.addIssue({ code: 'custom', path: [], message: `give at least one of ${EDIT_KEYS.join(', ')}`, params: { code: 'required' } });
}

export const UpdateDocDraftInput = z.strictObject({ ...pageAddressFields, ...pageEditFields }).superRefine((v, c) => {
  pageAddressRule(v, c);
  atLeastOneEdit(v, c);
});
type Input = z.infer<typeof UpdateDocDraftInput>;

export const UpdateDocDraftOutput = PageRef.extend({ status: z.literal('draft') });
export type UpdateDocDraftResult = z.infer<typeof UpdateDocDraftOutput>;

export const patchOf = (input: Input) => ({
  title: input.title,
  body: input.body,
  kind: input.kind,
  parentPageId: input.parent_page_id,
  pinned: input.pinned,
  changeSummary: input.change_summary,
});

export const updateDocDraft = defineOperation<Input, UpdateDocDraftResult, AgentPrincipal>({
  name: 'docs.update_draft',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['write:docs:draft'],
  idempotent: true,
  input: UpdateDocDraftInput,
  writes: true,
  handler: async (input, ctx) => {
    const { em } = ctx;
    const actor = actorOf(ctx.principal);
    const page = await requirePage(em, actor, addressOf(input), { lock: true });
    if (page.status !== 'draft') {
      const hint = page.status === 'published' ? 'use update_doc for published documents' : 'restore it first (restore_doc)';
      throw new DomainError('conflict', `the document is ${page.status}, not a draft; ${hint}`, { code: 'not_a_draft' });
    }
    if (!mayEditDraft(actor, { authorUserId: page.author_user_id, status: page.status, isLead: page.is_lead })) throw refused('only the author edits a draft');
    if (input.parent_page_id) await checkParent(em, actor, page.space_id, input.parent_page_id, page.id);
    await updatePage(em, page.id, patchOf(input), ctx.clock.now());
    auditDocWrite(
      em,
      ctx,
      'update_doc_draft',
      DOC_AUDIT.draftUpdated,
      { id: page.id },
      {
        project_slug: page.project_slug,
        space_slug: page.space_slug,
        slug: page.slug,
        fields: changedFields(input, EDIT_KEYS),
        ...(input.body !== undefined ? { body_chars: input.body.length } : {}),
      },
    );
    return { ...pageRef(page, ctx.config.publicBaseUrl), status: 'draft' as const };
  },
});

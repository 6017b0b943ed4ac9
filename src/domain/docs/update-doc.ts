// `update_doc` (SPEC C "tools named without shape"; scope write:docs:publish per "Agent token
// scopes"): edits a published page in place. The version it replaces is kept as a revision row
// (revision n = the page as it was at revision n); the answer names the new revision. Same
// callers as publish_doc_draft (author, admin, super admin, assistant, project owner or lead).
// Drafts are edited with update_doc_draft, archived pages restored first (CONFLICT).
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { DomainError } from '../errors.js';
import { DOC_AUDIT, actorOf, auditDocWrite, changedFields, checkParent, pageRef, refused, requirePage } from './doc-access.js';
import { insertRevision, updatePage } from './docs.repository.js';
import { mayModerate } from './docs.rules.js';
import { PageRef, addressOf, pageAddressFields, pageAddressRule } from './docs.schemas.js';
import { EDIT_KEYS, atLeastOneEdit, pageEditFields, patchOf } from './update-doc-draft.js';

export const UpdateDocInput = z.strictObject({ ...pageAddressFields, ...pageEditFields }).superRefine((v, c) => {
  pageAddressRule(v, c);
  atLeastOneEdit(v, c);
});
type Input = z.infer<typeof UpdateDocInput>;

export const UpdateDocOutput = PageRef.extend({ status: z.literal('published'), revision: z.number().int().min(2), updated_at: z.string() });
export type UpdateDocResult = z.infer<typeof UpdateDocOutput>;

export const updateDoc = defineOperation<Input, UpdateDocResult, AgentPrincipal>({
  name: 'docs.update',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['write:docs:publish'],
  idempotent: true,
  input: UpdateDocInput,
  writes: true,
  handler: async (input, ctx) => {
    const { em } = ctx;
    const actor = actorOf(ctx.principal);
    const page = await requirePage(em, actor, addressOf(input), { lock: true, withBody: true });
    if (!mayModerate(actor, { authorUserId: page.author_user_id, status: page.status, isLead: page.is_lead })) {
      throw refused('only the author, an admin, an assistant or a project lead may change a published document');
    }
    if (page.status !== 'published') {
      const hint = page.status === 'draft' ? 'use update_doc_draft for drafts' : 'restore it first (restore_doc)';
      throw new DomainError('conflict', `the document is ${page.status}, not published; ${hint}`, { code: 'not_published' });
    }
    if (input.parent_page_id) await checkParent(em, actor, page.space_id, input.parent_page_id, page.id);
    const now = ctx.clock.now();
    await insertRevision(
      em,
      { id: page.id, revision: page.revision, title: page.title, body: page.body ?? '', kind: page.kind, change_summary: page.change_summary },
      actor.userId,
      now,
    );
    await updatePage(em, page.id, patchOf(input), now, { bumpRevision: true });
    const revision = page.revision + 1;
    auditDocWrite(
      em,
      ctx,
      'update_doc',
      DOC_AUDIT.updated,
      { id: page.id },
      {
        project_slug: page.project_slug,
        space_slug: page.space_slug,
        slug: page.slug,
        revision,
        fields: changedFields(input, EDIT_KEYS),
        ...(input.body !== undefined ? { body_chars: input.body.length } : {}),
      },
    );
    return { ...pageRef(page, ctx.config.publicBaseUrl), status: 'published' as const, revision, updated_at: now.toISOString() };
  },
});

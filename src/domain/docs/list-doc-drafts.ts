// `list_doc_drafts` (SPEC C read tools, scope read:docs): authors see their own drafts; admin,
// super admin and assistant every draft; project owners and leads the drafts of their projects.
// Newest first.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { actorOf } from './doc-access.js';
import { isoOf, listVisibleDrafts } from './docs.repository.js';
import { docUrl } from './docs.rules.js';
import { kindField, limitField, projectSlugField, spaceSlugField } from './docs.schemas.js';

export const ListDocDraftsInput = z.strictObject({
  project_slug: projectSlugField.optional(),
  space_slug: spaceSlugField.optional(),
  limit: limitField,
});

export const DraftItem = z.object({
  page_id: z.uuid(),
  title: z.string(),
  slug: z.string(),
  space_slug: z.string(),
  project_slug: z.string(),
  kind: kindField,
  author_name: z.string(),
  updated_at: z.string(),
  url: z.string(),
});
export const ListDocDraftsOutput = z.object({ count: z.number().int().min(0), drafts: z.array(DraftItem) });
export type ListDocDraftsResult = z.infer<typeof ListDocDraftsOutput>;

export const listDocDrafts = defineOperation<z.infer<typeof ListDocDraftsInput>, ListDocDraftsResult, AgentPrincipal>({
  name: 'docs.list_drafts',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['read:docs'],
  idempotent: false,
  input: ListDocDraftsInput,
  handler: async (input, ctx) => {
    const rows = await listVisibleDrafts(ctx.em, actorOf(ctx.principal), { projectSlug: input.project_slug, spaceSlug: input.space_slug }, input.limit);
    const drafts = rows.map((r) => ({
      page_id: r.id,
      title: r.title,
      slug: r.slug,
      space_slug: r.space_slug,
      project_slug: r.project_slug,
      kind: r.kind,
      author_name: r.author_name,
      updated_at: isoOf(r.updated_at),
      url: docUrl(ctx.config.publicBaseUrl, r.space_slug, r.slug),
    }));
    return { count: drafts.length, drafts };
  },
});

// `list_docs` (SPEC C read tools, scope read:docs): documents visible to the caller, pinned first,
// then most recently updated. Without `status`, drafts (in the caller's range) and published
// pages; archived pages only with status "archived". `count` is the number of docs returned.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { actorOf } from './doc-access.js';
import { isoOf, listVisiblePages } from './docs.repository.js';
import { docUrl } from './docs.rules.js';
import { DocListItem, kindField, limitField, projectSlugField, spaceSlugField, statusField } from './docs.schemas.js';

export const ListDocsInput = z.strictObject({
  project_slug: projectSlugField.optional(),
  space_slug: spaceSlugField.optional(),
  status: statusField.optional(),
  kind: kindField.optional(),
  limit: limitField,
});

export const ListDocsOutput = z.object({ count: z.number().int().min(0), docs: z.array(DocListItem) });
export type ListDocsResult = z.infer<typeof ListDocsOutput>;

export const listDocs = defineOperation<z.infer<typeof ListDocsInput>, ListDocsResult, AgentPrincipal>({
  name: 'docs.list',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['read:docs'],
  idempotent: false,
  input: ListDocsInput,
  handler: async (input, ctx) => {
    const rows = await listVisiblePages(
      ctx.em,
      actorOf(ctx.principal),
      { projectSlug: input.project_slug, spaceSlug: input.space_slug, status: input.status, kind: input.kind },
      input.limit,
    );
    const docs = rows.map((r) => ({
      id: r.id,
      title: r.title,
      slug: r.slug,
      space_slug: r.space_slug,
      project_slug: r.project_slug,
      kind: r.kind,
      status: r.status,
      updated_at: isoOf(r.updated_at),
      url: docUrl(ctx.config.publicBaseUrl, r.space_slug, r.slug),
    }));
    return { count: docs.length, docs };
  },
});

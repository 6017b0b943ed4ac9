// `search_by_tags` (SPEC C, scope read:docs): visible documents carrying any (default) or all of
// `tags`, with the list_docs filters and default statuses; each hit lists its tags.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { actorOf } from './doc-access.js';
import { isoOf, searchVisibleByTags, tagsOfPages } from './docs.repository.js';
import { docUrl, normalizeTags } from './docs.rules.js';
import { DocListItem, kindField, limitField, projectSlugField, spaceSlugField, statusField, tagsField } from './docs.schemas.js';

export const SearchByTagsInput = z.strictObject({
  tags: tagsField,
  match: z.enum(['any', 'all']).default('any'),
  project_slug: projectSlugField.optional(),
  space_slug: spaceSlugField.optional(),
  status: statusField.optional(),
  kind: kindField.optional(),
  limit: limitField,
});

export const SearchByTagsOutput = z.object({
  tags: z.array(z.string()),
  match: z.enum(['any', 'all']),
  count: z.number().int().min(0),
  docs: z.array(DocListItem.extend({ tags: z.array(z.string()) })),
});
export type SearchByTagsResult = z.infer<typeof SearchByTagsOutput>;

export const searchByTags = defineOperation<z.infer<typeof SearchByTagsInput>, SearchByTagsResult, AgentPrincipal>({
  name: 'docs.search_by_tags',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['read:docs'],
  idempotent: false,
  input: SearchByTagsInput,
  handler: async (input, ctx) => {
    const tags = normalizeTags(input.tags);
    const rows = await searchVisibleByTags(
      ctx.em,
      actorOf(ctx.principal),
      tags,
      input.match,
      { projectSlug: input.project_slug, spaceSlug: input.space_slug, status: input.status, kind: input.kind },
      input.limit,
    );
    const tagMap = await tagsOfPages(
      ctx.em,
      rows.map((r) => r.id),
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
      tags: tagMap.get(r.id) ?? [],
    }));
    return { tags, match: input.match, count: docs.length, docs };
  },
});

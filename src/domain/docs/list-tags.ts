// `list_tags` (SPEC C, scope read:docs): the tags on drafts and published pages the caller can see,
// each with the number of such pages carrying it; most used first. Archived pages do not count.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { actorOf } from './doc-access.js';
import { listVisibleTags } from './docs.repository.js';
import { DOC_LIMITS, normalizeTag } from './docs.rules.js';
import { projectSlugField, spaceSlugField } from './docs.schemas.js';

export const ListTagsInput = z.strictObject({
  project_slug: projectSlugField.optional(),
  space_slug: spaceSlugField.optional(),
  /** Only tags starting with this text (compared like tags: trimmed, lowercased). */
  prefix: z.string().min(1).max(DOC_LIMITS.tag).transform(normalizeTag).optional(),
  limit: z.number().int().min(1).max(DOC_LIMITS.tagListMax).default(DOC_LIMITS.tagListDefault),
});

export const ListTagsOutput = z.object({ count: z.number().int().min(0), tags: z.array(z.object({ tag: z.string(), count: z.number().int().min(1) })) });
export type ListTagsResult = z.infer<typeof ListTagsOutput>;

export const listTags = defineOperation<z.infer<typeof ListTagsInput>, ListTagsResult, AgentPrincipal>({
  name: 'docs.list_tags',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['read:docs'],
  idempotent: false,
  input: ListTagsInput,
  handler: async (input, ctx) => {
    const rows = await listVisibleTags(
      ctx.em,
      actorOf(ctx.principal),
      { projectSlug: input.project_slug, spaceSlug: input.space_slug, prefix: input.prefix },
      input.limit,
    );
    const tags = rows.map((r) => ({ tag: r.tag, count: Number(r.count) }));
    return { count: tags.length, tags };
  },
});

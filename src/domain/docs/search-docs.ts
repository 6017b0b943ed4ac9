// `search_docs` (SPEC C read tools, scope read:docs): case-insensitive substring search over title
// and body of the documents visible to the caller (same filters and default statuses as
// list_docs). Title matches rank first, then full-text rank, pinned, recency. `matched_field` is
// the first field containing the query (title before body); `snippet` is cut around its first
// occurrence there.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { actorOf } from './doc-access.js';
import { searchVisiblePages } from './docs.repository.js';
import { DOC_LIMITS, docUrl, snippetAround } from './docs.rules.js';
import { kindField, limitField, projectSlugField, spaceSlugField, statusField } from './docs.schemas.js';

export const SearchDocsInput = z.strictObject({
  query: z.string().trim().min(1).max(DOC_LIMITS.query),
  project_slug: projectSlugField.optional(),
  space_slug: spaceSlugField.optional(),
  status: statusField.optional(),
  kind: kindField.optional(),
  limit: limitField,
});

export const SearchHit = z.object({
  id: z.uuid(),
  title: z.string(),
  slug: z.string(),
  space_slug: z.string(),
  project_slug: z.string(),
  kind: kindField,
  status: statusField,
  snippet: z.string(),
  matched_field: z.enum(['title', 'body']),
  url: z.string(),
});
export const SearchDocsOutput = z.object({ query: z.string(), count: z.number().int().min(0), hits: z.array(SearchHit) });
export type SearchDocsResult = z.infer<typeof SearchDocsOutput>;

export const searchDocs = defineOperation<z.infer<typeof SearchDocsInput>, SearchDocsResult, AgentPrincipal>({
  name: 'docs.search',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['read:docs'],
  idempotent: false,
  input: SearchDocsInput,
  handler: async (input, ctx) => {
    const rows = await searchVisiblePages(
      ctx.em,
      actorOf(ctx.principal),
      input.query,
      { projectSlug: input.project_slug, spaceSlug: input.space_slug, status: input.status, kind: input.kind },
      input.limit,
    );
    const hits = rows.map((r) => {
      const inTitle = Number(r.title_pos) > 0;
      const window = r.body_window ?? '';
      const start = Number(r.window_start);
      const snippet = inTitle
        ? snippetAround(r.title, input.query)
        : snippetAround(window, input.query, { cutBefore: start > 1, cutAfter: start - 1 + window.length < Number(r.body_len) });
      return {
        id: r.id,
        title: r.title,
        slug: r.slug,
        space_slug: r.space_slug,
        project_slug: r.project_slug,
        kind: r.kind,
        status: r.status,
        snippet,
        matched_field: inTitle ? ('title' as const) : ('body' as const),
        url: docUrl(ctx.config.publicBaseUrl, r.space_slug, r.slug),
      };
    });
    return { query: input.query, count: hits.length, hits };
  },
});

// `search` (SPEC C read tools, scope `read:*`): one case-insensitive substring search across
// feedback, tasks, meetings, notifications and comments, limited to what the caller may see (the
// visibility is part of the SQL, search.repository.ts). Hits are ordered by score, then newest.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { normalizeEmail } from '../users/users.rules.js';
import { searchVisible } from './search.repository.js';
import { hitSnippet, hitUrl, meetingSnippet, roundScore, SEARCH_LIMITS, SEARCH_TYPES, type SearchType } from './search.rules.js';
import { iso } from '../timestamps.js';
import { USER_LIMITS } from '../users/users.limits.js';
import { PROJECT_LIMITS } from '../projects/projects.limits.js';

const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;

export const SearchInput = z.strictObject({
  query: z
    .string()
    .trim()
    .min(1)
    .max(SEARCH_LIMITS.query)
    .refine((q) => !CONTROL_CHARS.test(q), { error: 'must be one line of text without control characters' }),
  types: z.array(z.enum(SEARCH_TYPES)).min(1).max(SEARCH_TYPES.length).optional(),
  filters: z
    .strictObject({
      project_slug: z.string().trim().toLowerCase().min(1).max(PROJECT_LIMITS.slugMax).optional(),
      author_email: z.email().max(USER_LIMITS.emailMax).optional(),
      since: z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time with offset, e.g. 2026-11-01T00:00:00Z' }).optional(),
      status: z
        .string()
        .regex(new RegExp(`^[a-z_]{1,${SEARCH_LIMITS.statusMax}}$`), { error: 'must be a status such as todo, in_progress, done, open, read or unread' })
        .optional(),
    })
    .optional(),
  limit: z.number().int().min(1).max(SEARCH_LIMITS.maxLimit).default(SEARCH_LIMITS.defaultLimit),
});

export const SearchHit = z.object({
  type: z.enum(SEARCH_TYPES),
  id: z.uuid(),
  title: z.string(),
  snippet: z.string(),
  matched_field: z.string(),
  url: z.string(),
  score: z.number(),
  createdAt: z.iso.datetime({ offset: true }),
});
export const SearchOutput = z.object({ query: z.string(), count: z.number().int().min(0), hits: z.array(SearchHit) });
export type SearchResult = z.infer<typeof SearchOutput>;

export const search = defineOperation<z.infer<typeof SearchInput>, SearchResult, AgentPrincipal>({
  name: 'search.across_types',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['read:*'],
  idempotent: false,
  input: SearchInput,
  handler: async (input, ctx) => {
    const types: SearchType[] = input.types ? SEARCH_TYPES.filter((t) => input.types!.includes(t)) : [...SEARCH_TYPES];
    const f = input.filters ?? {};
    const rows = await searchVisible(
      ctx.em,
      { userId: ctx.principal.userId, userRole: ctx.principal.userRole },
      types,
      input.query,
      {
        projectSlug: f.project_slug,
        authorEmail: f.author_email === undefined ? undefined : normalizeEmail(f.author_email),
        since: f.since === undefined ? undefined : new Date(f.since).toISOString(),
        status: f.status,
      },
      input.limit,
      ctx.clock.now(),
    );
    const hits = rows.map((r) => {
      const snippet = hitSnippet(input.query, r.body_window ?? '', Number(r.window_start), Number(r.field_len));
      return {
        type: r.type,
        id: r.id,
        title: r.title,
        snippet: r.type === 'meeting' && r.starts_at !== null ? meetingSnippet(snippet, r.starts_at, r.ends_at) : snippet,
        matched_field: r.matched_field,
        url: hitUrl(ctx.config.publicBaseUrl, { type: r.type, id: r.id, parentType: r.parent_type, linkRef: r.link_ref }),
        score: roundScore(r.score),
        createdAt: iso(r.created_at),
      };
    });
    return { query: input.query, count: hits.length, hits };
  },
});

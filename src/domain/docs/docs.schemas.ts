// Input and output pieces shared by the document tools (SPEC C doc tools). The output objects
// are exactly the spec's shapes; they are also advertised as the tools' outputSchema.
import { z } from 'zod';
import { DOC_KINDS, DOC_LIMITS, DOC_STATUSES, SLUG_PATTERN, TAG_PATTERN, normalizeTag } from './docs.rules.js';
import { PROJECT_LIMITS } from '../projects/projects.limits.js';

export const pageSlugField = z.string().min(1).max(DOC_LIMITS.slug);
export const spaceSlugField = z.string().min(1).max(DOC_LIMITS.spaceSlug);
export const projectSlugField = z.string().min(1).max(PROJECT_LIMITS.slugMax);
export const kindField = z.enum(DOC_KINDS);
export const statusField = z.enum(DOC_STATUSES);
export const limitField = z.number().int().min(1).max(DOC_LIMITS.listMax).default(DOC_LIMITS.listDefault);
export const titleField = z.string().trim().min(1).max(DOC_LIMITS.title);
export const bodyField = z.string().max(DOC_LIMITS.body);
export const changeSummaryField = z.string().trim().max(DOC_LIMITS.changeSummary);
export const newSlugField = z
  .string()
  .max(DOC_LIMITS.slug)
  .regex(SLUG_PATTERN, { error: 'must be lowercase letters, digits and single dashes (e.g. "release-checklist")' });
export const tagField = z
  .string()
  .max(DOC_LIMITS.tag)
  .transform(normalizeTag)
  .refine((t) => TAG_PATTERN.test(t), { error: 'must start with a letter or digit and contain only letters, digits, dash, underscore, dot, colon or slash' });
export const tagsField = z.array(tagField).min(1).max(DOC_LIMITS.tagsPerCall);

/** A page is addressed by `page_id`, or by the `space_slug` + `page_slug` pair (SPEC C get_doc). */
export const pageAddressFields = {
  page_id: z.uuid({ error: 'must be a UUID' }).optional(),
  space_slug: spaceSlugField.optional(),
  page_slug: pageSlugField.optional(),
};
export type PageAddressInput = { page_id?: string; space_slug?: string; page_slug?: string };
export type PageAddress = { pageId: string } | { spaceSlug: string; pageSlug: string };

export function pageAddressRule(v: PageAddressInput, c: z.RefinementCtx): void {
  const pair = v.space_slug !== undefined || v.page_slug !== undefined;
  if (v.page_id !== undefined) {
    if (pair)
      c.addIssue({
        code: 'custom',
        path: [v.space_slug !== undefined ? 'space_slug' : 'page_slug'],
        message: 'give page_id or the space_slug and page_slug pair, not both',
        params: { code: 'exactly_one' },
      });
    return;
  }
  if (!pair) {
    c.addIssue({ code: 'custom', path: ['page_id'], message: 'give page_id or both space_slug and page_slug', params: { code: 'required' } });
    return;
  }
  for (const k of ['space_slug', 'page_slug'] as const) {
    if (v[k] === undefined)
      c.addIssue({ code: 'custom', path: [k], message: `is required with ${k === 'space_slug' ? 'page_slug' : 'space_slug'}`, params: { code: 'required' } });
  }
}

export const addressOf = (v: PageAddressInput): PageAddress =>
  v.page_id !== undefined ? { pageId: v.page_id } : { spaceSlug: v.space_slug!, pageSlug: v.page_slug! };

const iso = z.string();

export const DocListItem = z.object({
  id: z.uuid(),
  title: z.string(),
  slug: z.string(),
  space_slug: z.string(),
  project_slug: z.string(),
  kind: kindField,
  status: statusField,
  updated_at: iso,
  url: z.string(),
});
export type DocListItem = z.infer<typeof DocListItem>;

/** Where a write left the page (the common part of the write tools' answers). */
export const PageRef = z.object({
  page_id: z.uuid(),
  slug: z.string(),
  space_slug: z.string(),
  project_slug: z.string(),
  url: z.string(),
});

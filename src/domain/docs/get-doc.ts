// `get_doc` (SPEC C read tools, scope read:docs): one document with its body, by `page_id` or by
// the `space_slug` + `page_slug` pair. Outside the caller's visibility it is NOT_FOUND.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { actorOf, requirePage } from './doc-access.js';
import { isoOf } from './docs.repository.js';
import { docUrl } from './docs.rules.js';
import { addressOf, kindField, pageAddressFields, pageAddressRule, statusField } from './docs.schemas.js';

export const GetDocInput = z.strictObject(pageAddressFields).superRefine(pageAddressRule);

export const GetDocOutput = z.object({
  id: z.uuid(),
  title: z.string(),
  body: z.string(),
  slug: z.string(),
  space_slug: z.string(),
  project_slug: z.string(),
  kind: kindField,
  status: statusField,
  updated_at: z.string(),
  /** Present once the page has been published (kept when it is archived later). */
  published_at: z.string().optional(),
  url: z.string(),
});
export type GetDocResult = z.infer<typeof GetDocOutput>;

export const getDoc = defineOperation<z.infer<typeof GetDocInput>, GetDocResult, AgentPrincipal>({
  name: 'docs.get',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['read:docs'],
  idempotent: false,
  input: GetDocInput,
  handler: async (input, ctx) => {
    const p = await requirePage(ctx.em, actorOf(ctx.principal), addressOf(input), { withBody: true });
    return {
      id: p.id,
      title: p.title,
      body: p.body ?? '',
      slug: p.slug,
      space_slug: p.space_slug,
      project_slug: p.project_slug,
      kind: p.kind,
      status: p.status,
      updated_at: isoOf(p.updated_at),
      ...(p.published_at ? { published_at: isoOf(p.published_at) } : {}),
      url: docUrl(ctx.config.publicBaseUrl, p.space_slug, p.slug),
    };
  },
});

// `create_doc_draft` (SPEC C write tools, scope write:docs:draft; Document states none -> draft).
// The space is `space_slug` (an existing space of a project the caller belongs to), or the
// project's default space (slug `<project-slug>`, created on first use) when only `project_slug`
// is given. The slug is `slug` when given (taken in the space = CONFLICT), else derived from the
// title with `-2`, `-3`... appended until free. The caller must belong to the project (admin,
// super admin and assistant: any project); otherwise the project or space is NOT_FOUND.
import type { EntityManager } from '@mikro-orm/core';
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { DomainError, notFound } from '../errors.js';
import { DOC_AUDIT, actorOf, auditDocWrite, changedFields, checkParent, pageRef } from './doc-access.js';
import { ensureDefaultSpace, findProject, findSpace, insertDraft, slugsLike } from './docs.repository.js';
import { DEFAULT_DOC_KIND, slugCandidate, slugFromTitle, type DocActor } from './docs.rules.js';
import { PageRef, bodyField, changeSummaryField, kindField, newSlugField, projectSlugField, spaceSlugField, titleField } from './docs.schemas.js';

export const CreateDocDraftInput = z
  .strictObject({
    project_slug: projectSlugField.optional(),
    space_slug: spaceSlugField.optional(),
    title: titleField,
    slug: newSlugField.optional(),
    body: bodyField.default(''),
    kind: kindField.default(DEFAULT_DOC_KIND),
    parent_page_id: z.uuid({ error: 'must be a UUID' }).optional(),
    pinned: z.boolean().default(false),
    change_summary: changeSummaryField.optional(),
  })
  .superRefine((v, c) => {
    if (v.project_slug === undefined && v.space_slug === undefined) {
      c.addIssue({ code: 'custom', path: ['project_slug'], message: 'give project_slug or space_slug (at least one)', params: { code: 'required' } });
    }
  });
type Input = z.infer<typeof CreateDocDraftInput>;

export const CreateDocDraftOutput = PageRef.pick({ page_id: true, project_slug: true, space_slug: true, slug: true }).extend({
  status: z.literal('draft'),
  url: z.string(),
});
export type CreateDocDraftResult = z.infer<typeof CreateDocDraftOutput>;

interface TargetSpace {
  id: string;
  slug: string;
  projectId: string;
  projectSlug: string;
  created: boolean;
}

async function resolveSpace(em: EntityManager, actor: DocActor, input: Input, now: Date): Promise<TargetSpace> {
  if (input.space_slug !== undefined) {
    const s = await findSpace(em, input.space_slug, actor.userId);
    const usable = s && (s.is_member || actor.elevated);
    if (s && usable) {
      if (input.project_slug !== undefined && s.project_slug !== input.project_slug)
        throw notFound(`space "${input.space_slug}" in project "${input.project_slug}"`);
      return { id: s.id, slug: s.slug, projectId: s.project_id, projectSlug: s.project_slug, created: false };
    }
    // The project's default space may not exist yet: `space_slug` equal to `project_slug` creates it.
    if (s || input.project_slug === undefined || input.space_slug !== input.project_slug) throw notFound(`space "${input.space_slug}"`);
  }
  const project = await findProject(em, input.project_slug!, actor.userId);
  if (!project || !(project.is_member || actor.elevated)) throw notFound(`project "${input.project_slug}"`);
  const space = await ensureDefaultSpace(em, project, actor.userId, now);
  return { id: space.id, slug: space.slug, projectId: project.id, projectSlug: project.slug, created: space.created };
}

export const createDocDraft = defineOperation<Input, CreateDocDraftResult, AgentPrincipal>({
  name: 'docs.create_draft',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['write:docs:draft'],
  idempotent: true,
  input: CreateDocDraftInput,
  writes: true,
  handler: async (input, ctx) => {
    const { em } = ctx;
    const actor = actorOf(ctx.principal);
    const now = ctx.clock.now();
    const space = await resolveSpace(em, actor, input, now);
    if (input.parent_page_id !== undefined) await checkParent(em, actor, space.id, input.parent_page_id);
    const page = {
      spaceId: space.id,
      projectId: space.projectId,
      parentPageId: input.parent_page_id ?? null,
      title: input.title,
      body: input.body,
      kind: input.kind,
      pinned: input.pinned,
      changeSummary: input.change_summary ?? null,
      authorUserId: actor.userId,
      now,
    };
    let id: string | undefined;
    let slug: string;
    if (input.slug !== undefined) {
      slug = input.slug;
      id = await insertDraft(em, page, slug);
      if (!id) throw new DomainError('conflict', `slug "${slug}" is already taken in space "${space.slug}"`, { code: 'slug_taken', extra: { field: 'slug' } });
    } else {
      const base = slugFromTitle(input.title);
      const taken = await slugsLike(em, space.id, base);
      slug = base;
      // Bounded: a concurrent writer may take a candidate between the read and the insert.
      for (let n = 1; id === undefined && n < 10_000; n++) {
        slug = slugCandidate(base, n);
        if (taken.has(slug)) continue;
        id = await insertDraft(em, page, slug);
        taken.add(slug);
      }
      if (!id)
        throw new DomainError('conflict', `no free slug derived from the title in space "${space.slug}"; pass slug`, {
          code: 'slug_taken',
          extra: { field: 'slug' },
        });
    }
    if (space.created)
      auditDocWrite(
        em,
        ctx,
        'create_doc_draft',
        DOC_AUDIT.spaceCreated,
        { type: 'doc_space', id: space.id },
        { project_slug: space.projectSlug, space_slug: space.slug, default: true },
      );
    auditDocWrite(
      em,
      ctx,
      'create_doc_draft',
      DOC_AUDIT.draftCreated,
      { id },
      {
        project_slug: space.projectSlug,
        space_slug: space.slug,
        slug,
        kind: input.kind,
        parent_page_id: input.parent_page_id ?? null,
        fields: changedFields(input, ['slug', 'body', 'parent_page_id', 'pinned', 'change_summary']),
        body_chars: input.body.length,
      },
    );
    return { ...pageRef({ id, slug, space_slug: space.slug, project_slug: space.projectSlug }, ctx.config.publicBaseUrl), status: 'draft' as const };
  },
});

// `unbind_project_repository` (SPEC C write tools; same scope and permission as bind): archives
// the project's binding of `repo_url` (any spelling of the same repository). Its push webhook
// stops accepting deliveries (410); its commits stay listed. Unbinding an unbound repository
// answers the same result again (idempotent); a repository never bound here is NOT_FOUND.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { notFound } from '../errors.js';
import { recordToolAudit } from '../audit/tool-audit.js';
import { REPOSITORY_AUDIT } from './bind-project-repository.js';
import { requireBinder, requireVisibleProject } from './repository-access.js';
import { archiveRepository, findRepositoryByKey } from './repositories.repository.js';
import { parseRepoUrl, type ParsedRepoUrl } from './repositories.rules.js';
import { projectSlugField, repoUrlField } from './repositories.schemas.js';

export const UnbindProjectRepositoryInput = z.strictObject({ project_slug: projectSlugField, repo_url: repoUrlField });
export type UnbindProjectRepositoryInput = z.infer<typeof UnbindProjectRepositoryInput>;

export const UnbindProjectRepositoryOutput = z.object({ repo_id: z.uuid(), project_slug: z.string(), archived: z.literal(true) });
export type UnbindProjectRepositoryResult = z.infer<typeof UnbindProjectRepositoryOutput>;

export const unbindProjectRepositoryOp = defineOperation<UnbindProjectRepositoryInput, UnbindProjectRepositoryResult, AgentPrincipal>({
  name: 'repositories.unbind',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['code:repo:bind', 'admin:projects'],
  idempotent: true,
  input: UnbindProjectRepositoryInput,
  writes: true,
  handler: async (input, ctx) => {
    const parsed = (parseRepoUrl(input.repo_url) as { ok: true; value: ParsedRepoUrl }).value;
    const { em } = ctx;
    const project = await requireVisibleProject(em, ctx.principal, input.project_slug);
    await requireBinder(em, ctx.principal, project);
    const repo = await findRepositoryByKey(em, project.id, parsed.key, true);
    if (!repo) throw notFound('repository');
    if (repo.archived_at === null) {
      await archiveRepository(em, repo.id, ctx.clock.now());
      recordToolAudit(em, ctx, {
        tool: 'unbind_project_repository',
        action: REPOSITORY_AUDIT.unbound,
        targetType: 'project_repository',
        targetId: repo.id,
        summary: { projectId: project.id, provider: repo.provider, fullName: repo.full_name },
      });
    }
    return { repo_id: repo.id, project_slug: project.slug, archived: true as const };
  },
});

// `bind_project_repository` (SPEC C write tools; agent protocol 15 "Bind"): scope `code:repo:bind`
// or the deprecated `admin:projects`, and the caller must be allowed to bind in the project
// (repository-access.ts). One row per repository and project (`host/full_name`, any spelling);
// binding an unbound one restores it with a new webhook secret, which is returned only when issued.
import { randomBytes, randomUUID } from 'node:crypto';
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { DomainError } from '../errors.js';
import { recordToolAudit } from '../audit/tool-audit.js';
import { pushWebhookUrl, requireBinder, requireVisibleProject } from './repository-access.js';
import { findRepositoryByKey, insertRepository, updateRepository } from './repositories.repository.js';
import { DEFAULT_BRANCH, parseRepoUrl, providerPathIssue, REPO_LIMITS, type ParsedRepoUrl } from './repositories.rules.js';
import { branchField, projectSlugField, providerField, repoUrlField } from './repositories.schemas.js';

export const REPOSITORY_AUDIT = {
  bound: 'repositories.bound',
  rebound: 'repositories.rebound',
  restored: 'repositories.restored',
  unbound: 'repositories.unbound',
} as const;

const sshUrlField = z
  .string()
  .max(REPO_LIMITS.url)
  .superRefine((v, c) => {
    const r = parseRepoUrl(v);
    if (!r.ok) c.addIssue({ code: 'custom', message: r.message, params: { code: r.code } });
    else if (!r.value.isSsh)
      c.addIssue({
        code: 'custom',
        message: 'must be an ssh address (git@host:owner/name.git or ssh://git@host/owner/name.git)',
        params: { code: 'ssh_url_invalid' },
      });
  });

export const BindProjectRepositoryInput = z
  .strictObject({
    project_slug: projectSlugField,
    provider: providerField,
    repo_url: repoUrlField,
    ssh_url: sshUrlField.optional(),
    default_branch: branchField.optional(),
  })
  .superRefine((v, c) => {
    const repo = parseRepoUrl(v.repo_url);
    if (!repo.ok) return;
    const providerIssue = providerPathIssue(v.provider, repo.value);
    if (providerIssue) c.addIssue({ code: 'custom', path: ['repo_url'], message: providerIssue, params: { code: 'repo_path_invalid' } });
    if (v.ssh_url !== undefined) {
      const ssh = parseRepoUrl(v.ssh_url);
      if (ssh.ok && ssh.value.fullName.toLowerCase() !== repo.value.fullName.toLowerCase()) {
        c.addIssue({
          code: 'custom',
          path: ['ssh_url'],
          message: `names ${ssh.value.fullName}, but repo_url names ${repo.value.fullName}`,
          params: { code: 'ssh_url_mismatch' },
        });
      }
    }
  });
export type BindProjectRepositoryInput = z.infer<typeof BindProjectRepositoryInput>;

export const BindProjectRepositoryOutput = z.object({
  repo_id: z.uuid(),
  project_slug: z.string(),
  provider: providerField,
  web_url: z.string(),
  full_name: z.string(),
  default_branch: z.string(),
  created: z.boolean(),
  /** An unbound repository was bound again (new webhook secret). */
  restored: z.boolean(),
  ssh_url: z.string(),
  webhook_url: z.string(),
  /** Only when issued (created or restored); never shown again. */
  webhook_secret: z.string().optional(),
});
export type BindProjectRepositoryResult = z.infer<typeof BindProjectRepositoryOutput>;

export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString('base64url')}`;

export const bindProjectRepositoryOp = defineOperation<BindProjectRepositoryInput, BindProjectRepositoryResult, AgentPrincipal>({
  name: 'repositories.bind',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['code:repo:bind', 'admin:projects'],
  idempotent: true,
  input: BindProjectRepositoryInput,
  writes: true,
  handler: async (input, ctx) => {
    const parsed = (parseRepoUrl(input.repo_url) as { ok: true; value: ParsedRepoUrl }).value;
    const { em } = ctx;
    const project = await requireVisibleProject(em, ctx.principal, input.project_slug);
    await requireBinder(em, ctx.principal, project);
    const now = ctx.clock.now();
    const sshUrl = input.ssh_url?.trim();
    let existing = await findRepositoryByKey(em, project.id, parsed.key, true);
    let created = false;
    let restored = false;
    let secret: string | undefined;
    if (!existing) {
      secret = newWebhookSecret();
      const r = await insertRepository(em, {
        id: randomUUID(),
        projectId: project.id,
        provider: input.provider,
        key: parsed.key,
        fullName: parsed.fullName,
        webUrl: parsed.webUrl,
        sshUrl: sshUrl ?? parsed.sshUrl,
        defaultBranch: input.default_branch ?? DEFAULT_BRANCH,
        webhookSecret: secret,
        boundByUserId: ctx.principal.userId,
        now,
      });
      existing = r.row;
      created = r.created;
      if (!created) secret = undefined; // a concurrent bind won: its secret stands
    }
    if (existing.provider !== input.provider) {
      throw new DomainError(
        'conflict',
        `${existing.full_name} is bound in this project as a ${existing.provider} repository; unbind it first to change the provider`,
        {
          code: 'provider_mismatch',
          extra: { field: 'provider' },
        },
      );
    }
    if (!created) {
      restored = existing.archived_at !== null;
      if (restored) secret = newWebhookSecret();
      existing = await updateRepository(em, existing.id, {
        sshUrl: sshUrl ?? (parsed.isSsh ? parsed.sshUrl : existing.ssh_url),
        defaultBranch: input.default_branch ?? existing.default_branch,
        restoreWithSecret: restored ? secret : undefined,
        boundByUserId: ctx.principal.userId,
        now,
      });
    }
    recordToolAudit(em, ctx, {
      tool: 'bind_project_repository',
      action: created ? REPOSITORY_AUDIT.bound : restored ? REPOSITORY_AUDIT.restored : REPOSITORY_AUDIT.rebound,
      targetType: 'project_repository',
      targetId: existing.id,
      summary: {
        projectId: project.id,
        provider: existing.provider,
        fullName: existing.full_name,
        created,
        restored,
        fields: ['ssh_url', 'default_branch'].filter((k) => (input as Record<string, unknown>)[k] !== undefined),
      },
    });
    return {
      repo_id: existing.id,
      project_slug: project.slug,
      provider: existing.provider,
      web_url: existing.web_url,
      full_name: existing.full_name,
      default_branch: existing.default_branch,
      created,
      restored,
      ssh_url: existing.ssh_url,
      webhook_url: pushWebhookUrl(ctx.config.publicBaseUrl, existing.id),
      ...(secret !== undefined ? { webhook_secret: secret } : {}),
    };
  },
});

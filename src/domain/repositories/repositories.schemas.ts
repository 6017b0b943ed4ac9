// Input and output pieces shared by the repository tools (SPEC C). The output objects are the
// spec's shapes (plus the webhook fields of bind); they are also the tools' outputSchema.
import { z } from 'zod';
import { branchNameIssue, normalizeBranch, parseRepoUrl, REPO_LIMITS, REPOSITORY_PROVIDERS } from './repositories.rules.js';
import { PROJECT_LIMITS } from '../projects/projects.limits.js';

export const projectSlugField = z.string().trim().min(1).max(PROJECT_LIMITS.slugMax);
export const providerField = z.enum(REPOSITORY_PROVIDERS);

/** A repository address; the structural rules are checked here so every issue is reported at once. */
export const repoUrlField = z
  .string()
  .max(REPO_LIMITS.url)
  .superRefine((v, c) => {
    const r = parseRepoUrl(v);
    if (!r.ok) c.addIssue({ code: 'custom', message: r.message, params: { code: r.code } });
  });

export const branchField = z
  .string()
  .trim()
  .max(REPO_LIMITS.branch + 'refs/heads/'.length)
  .transform(normalizeBranch)
  .superRefine((v, c) => {
    const issue = branchNameIssue(v);
    if (issue) c.addIssue({ code: 'custom', message: issue, params: { code: 'branch_invalid' } });
  });

export const RepositoryItem = z.object({
  id: z.uuid(),
  provider: providerField,
  full_name: z.string(),
  web_url: z.string(),
  ssh_url: z.string(),
  default_branch: z.string(),
  /** Bound (not archived) and at least one signed push delivery has been accepted. */
  is_monitored: z.boolean(),
  archived: z.boolean(),
});

export const CommitItem = z.object({
  repo_full_name: z.string(),
  provider: providerField,
  short_sha: z.string(),
  title: z.string(),
  url: z.string().nullable(),
  /** The commit author's name (their email when the push gave no name). */
  actor: z.string(),
  occurred_at: z.string(),
});

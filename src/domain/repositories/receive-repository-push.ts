// The push webhook (SPEC C list_project_repository_commits; agent protocol 15 "How commits arrive"):
// POST /api/internal-os/integrations/repositories/<repo_id>/push, signed with the repository's
// webhook secret. Checks in order, each a documented 4xx: unknown repository 404, signature 401,
// unbound 410, not UTF-8 JSON 400, payload shape 400, another repository 409. The signature is
// checked before the body is parsed, so an unsigned caller learns nothing of the payload rules:
// that is why the payload is validated here, not by the runner. One commit row per (repository, sha).
import { z } from 'zod';
import { defineOperation } from '../context.js';
import { DomainError, notFound, validationFailed } from '../errors.js';
import { zodToIssues } from '../validation.js';
import { findRepositoryById, markPushReceived, upsertCommits, type IncomingCommit } from './repositories.repository.js';
import { branchOfRef, commitTitle, REPO_LIMITS, safeLink, signatureMatches } from './repositories.rules.js';

export const ReceivePushInput = z.strictObject({
  repo_id: z.uuid({ error: 'must be a repository id (UUID)' }),
  /** The signature header's value, whichever of the accepted headers carried it. */
  signature: z.string().max(REPO_LIMITS.pushSignatureMax).optional(),
  /** `X-Gitea-Event` (or `X-Gogs-Event`, `X-GitHub-Event`). */
  event: z.string().max(REPO_LIMITS.pushEventMax).optional(),
  body: z.instanceof(Uint8Array),
});
export type ReceivePushInput = z.infer<typeof ReceivePushInput>;

const PushCommit = z.looseObject({
  id: z.string().regex(/^[0-9a-fA-F]{40}([0-9a-fA-F]{24})?$/, { error: 'must be a full commit sha (40 or 64 hex characters)' }),
  message: z.string().max(REPO_LIMITS.commitMessageMax),
  url: z.string().max(REPO_LIMITS.commitUrlMax).optional(),
  author: z
    .looseObject({ name: z.string().max(REPO_LIMITS.commitAuthorNameMax).optional(), email: z.string().max(REPO_LIMITS.commitAuthorEmailMax).optional() })
    .optional(),
  timestamp: z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time with offset' }),
});

export const PushPayload = z.looseObject({
  ref: z.string().min(1).max(REPO_LIMITS.pushRefMax),
  commits: z.array(PushCommit).max(REPO_LIMITS.commitsPerPush).nullable().optional(),
  repository: z
    .looseObject({ full_name: z.string().max(REPO_LIMITS.pushFullNameMax).optional() })
    .nullable()
    .optional(),
});

export interface ReceivePushResult {
  ok: true;
  repo_id: string;
  /** The branch pushed to; null when the delivery was ignored. */
  branch: string | null;
  received: number;
  stored: number;
  ignored?: string;
}

const decoder = new TextDecoder('utf-8', { fatal: true });

export const receiveRepositoryPush = defineOperation<ReceivePushInput, ReceivePushResult>({
  name: 'repositories.receive_push',
  auth: { kind: 'none' },
  budget: null,
  idempotent: false,
  input: ReceivePushInput,
  // The commits and the received mark commit together (a refused delivery writes nothing).
  writes: true,
  handler: async (input, ctx) => {
    const repoId = input.repo_id.toLowerCase();
    const repo = await findRepositoryById(ctx.em, repoId);
    if (!repo) throw notFound('repository');
    if (input.signature === undefined) {
      throw new DomainError('unauthenticated', 'a signature header is required: X-Gitea-Signature (hex HMAC-SHA256 of the body with the webhook secret)', {
        code: 'signature_missing',
      });
    }
    if (!signatureMatches(repo.webhook_secret, input.body, input.signature)) {
      throw new DomainError('unauthenticated', 'signature does not match the body; check the webhook secret', { code: 'signature_mismatch' });
    }
    if (repo.archived_at !== null)
      throw new DomainError('gone', 'this repository was unbound from its project; remove the webhook or bind it again', { code: 'repository_unbound' });

    const now = ctx.clock.now();
    const ignored = (reason: string): ReceivePushResult => ({ ok: true, repo_id: repo.id, branch: null, received: 0, stored: 0, ignored: reason });
    const event = input.event?.trim().toLowerCase();
    if (event !== undefined && event !== '' && event !== 'push') {
      await markPushReceived(ctx.em, repo.id, now);
      return ignored(`event ${event.slice(0, 40)} is not recorded`);
    }

    let json: unknown;
    try {
      json = JSON.parse(decoder.decode(input.body));
    } catch {
      throw new DomainError('validation', 'body is not valid UTF-8 JSON', {
        code: 'malformed_json',
        issues: [{ field: '', code: 'malformed_json', message: 'body is not valid UTF-8 JSON' }],
      });
    }
    const parsed = PushPayload.safeParse(json, { reportInput: true });
    if (!parsed.success) throw validationFailed(zodToIssues(parsed.error));
    const payload = parsed.data;
    const named = payload.repository?.full_name;
    if (named !== undefined && named.toLowerCase() !== repo.full_name.toLowerCase()) {
      throw new DomainError('conflict', `the payload is for ${named.slice(0, 100)}, but this webhook belongs to ${repo.full_name}`, {
        code: 'repository_mismatch',
      });
    }
    const branch = branchOfRef(payload.ref);
    if (branch === null) {
      await markPushReceived(ctx.em, repo.id, now);
      return ignored('not a branch ref');
    }
    // One row per sha even within a payload (a statement may not touch a row twice).
    const bySha = new Map<string, IncomingCommit>();
    for (const c of payload.commits ?? []) {
      const sha = c.id.toLowerCase();
      if (bySha.has(sha)) continue;
      bySha.set(sha, {
        sha,
        title: commitTitle(c.message),
        url: safeLink(c.url),
        author_name: (c.author?.name ?? '').trim(),
        author_email: (c.author?.email ?? '').trim(),
        occurred_at: new Date(c.timestamp).toISOString(),
      });
    }
    const stored = await upsertCommits(ctx.em, { id: repo.id, projectId: repo.project_id }, branch, [...bySha.values()], now);
    await markPushReceived(ctx.em, repo.id, now);
    ctx.log.info({ repoId: repo.id, branch, received: bySha.size, stored }, 'repository push recorded');
    return { ok: true, repo_id: repo.id, branch, received: bySha.size, stored };
  },
});

// Push webhooks of bound repositories (agent protocol 15):
//   POST /api/internal-os/integrations/repositories/:repo_id/push
// The raw body bytes go to the operation (the signature is an HMAC of exactly those bytes);
// errors have the body form of the other /api/internal-os routes ({error: <code>, message} and,
// for 400s, reason/field/errors[]: sendLegacyError). Content-Type must be application/json (415 otherwise: set the provider's webhook
// content type to JSON); body at most 1 MB (413).
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../app/deps.js';
import { toDomainError } from '../../app/run-operation.js';
import type { Logger } from '../../domain/context.js';
import { receiveRepositoryPush } from '../../domain/repositories/receive-repository-push.js';
import { REPO_LIMITS } from '../../domain/repositories/repositories.limits.js';
import { DomainError } from '../../domain/errors.js';
import { contentTypeError, fastifyErrorToDomain } from '../http/json-body.js';
import { header, invoke } from '../http/invoke.js';
import { sendLegacyError } from './errors.js';

const SIGNATURE_HEADERS = ['x-gitea-signature', 'x-gogs-signature', 'x-hub-signature-256'] as const;
const EVENT_HEADERS = ['x-gitea-event', 'x-gogs-event', 'x-github-event'] as const;

export async function repositoryWebhooksPlugin(app: FastifyInstance, opts: { deps: AppDeps }): Promise<void> {
  app.setErrorHandler((err, req, reply) => {
    const de = fastifyErrorToDomain(err) ?? toDomainError(err, req.log as unknown as Logger);
    // The shared mapper names the 256 KB limit of the other routes.
    const fixed = de.kind === 'payload_too_large' ? new DomainError('payload_too_large', 'push body larger than 1 MB', { code: 'payload_too_large' }) : de;
    return sendLegacyError(reply, fixed);
  });
  app.removeAllContentTypeParsers();
  // The edge's one Content-Type rule; the bytes stay raw (the signature is an HMAC of exactly them).
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: REPO_LIMITS.pushBody }, (req, body, done) => {
    const refused = contentTypeError(String(req.headers['content-type'] ?? ''));
    if (refused) done(refused, undefined);
    else done(null, body);
  });

  app.post<{ Params: { repo_id: string } }>(
    '/api/internal-os/integrations/repositories/:repo_id/push',
    { bodyLimit: REPO_LIMITS.pushBody },
    async (req, reply) => {
      const signature = SIGNATURE_HEADERS.map((h) => header(req, h)).find((v) => v !== undefined);
      const event = EVENT_HEADERS.map((h) => header(req, h)).find((v) => v !== undefined);
      const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const { output } = await invoke(
        opts.deps,
        receiveRepositoryPush,
        req,
        reply,
        { repo_id: req.params.repo_id, signature, event, body },
        { surface: 'legacy', channel: 'legacy' },
      );
      return reply.send(output);
    },
  );
}

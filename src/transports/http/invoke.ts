// The shared HTTP step of the JSON surfaces: headers -> Invocation -> runOperation, and the
// rate-limit headers of the answer.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../../app/deps.js';
import { runOperation, type RunResult } from '../../app/run-operation.js';
import type { Channel, Logger, Operation, Surface } from '../../domain/context.js';
import { setRateLimitHeaders } from './response-headers.js';

export function header(req: FastifyRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

export async function invoke<I, O>(
  deps: AppDeps,
  op: Operation<I, O, any>,
  req: FastifyRequest,
  reply: FastifyReply,
  input: unknown,
  where: { surface: Surface; channel?: Channel },
): Promise<RunResult<O>> {
  const result = await runOperation(deps, op, {
    surface: where.surface,
    channel: where.channel,
    requestId: req.id,
    authorization: header(req, 'authorization'),
    idempotencyKey: header(req, 'idempotency-key'),
    callerToolsToken: header(req, 'x-caller-tools-token'),
    input,
    log: req.log as unknown as Logger,
  });
  if (result.rateLimit) setRateLimitHeaders((k, v) => reply.header(k, v), result.rateLimit);
  if (result.replayed) reply.header('idempotent-replayed', 'true');
  return result;
}

/** Path parameters merged into a JSON body (a non-object body is left for validation to refuse). */
export function withPathParams(body: unknown, params: Record<string, string>): unknown {
  if (body === undefined || body === null) return { ...params };
  if (typeof body !== 'object' || Array.isArray(body)) return body;
  return { ...(body as Record<string, unknown>), ...params };
}

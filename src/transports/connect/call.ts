// The one Connect call path: request id, authorization (or the web session the request gate
// resolved) and Idempotency-Key from the headers ->
// runOperation -> rate-limit headers; DomainErrors become ConnectErrors with their details.
import { createContextKey, type HandlerContext } from '@connectrpc/connect';
import type { AppDeps } from '../../app/deps.js';
import { runOperation, type RunResult } from '../../app/run-operation.js';
import type { Logger, Operation } from '../../domain/context.js';
import type { Principal } from '../../domain/principal.js';
import { DomainError } from '../../domain/errors.js';
import { toConnectError } from './errors.js';
import { requestIdFrom } from '../http/request-id.js';
import { setRateLimitHeaders } from '../http/response-headers.js';
import { SESSION_PRINCIPAL } from './session-auth.js';

/** The call's request id, chosen by the request gate (serving.ts) before the body is read. */
export const REQUEST_ID = createContextKey<string | undefined>(undefined, { description: 'x-request-id' });

/**
 * Runs `op` for a Connect call: its request id, and the caller as `auth` says (default: the call's
 * Authorization header, or the web session the request gate resolved). DomainErrors become
 * ConnectErrors. Sets no response header: a stream has sent its headers by its later runs.
 */
export async function runConnect<I, O>(
  deps: AppDeps,
  op: Operation<I, O, any>,
  input: unknown,
  hctx: HandlerContext,
  opts: { auth?: { authorization?: string; authenticated?: Principal }; inputField?: string } = {},
): Promise<RunResult<O>> {
  const requestId = requestIdOf(hctx);
  try {
    return await runOperation(deps, op, {
      surface: 'connect',
      channel: 'v1',
      requestId,
      ...(opts.auth ?? {
        authorization: hctx.requestHeader.get('authorization') ?? undefined,
        // A web session's user, resolved by the request gate (serving.ts; session-auth.ts).
        authenticated: hctx.values.get(SESSION_PRINCIPAL),
      }),
      idempotencyKey: hctx.requestHeader.get('idempotency-key') ?? undefined,
      input,
      log: deps.log.child({ requestId, procedure: hctx.method.name }) as Logger,
    });
  } catch (err) {
    throw err instanceof DomainError ? toConnectError(err, opts.inputField) : err;
  }
}

const requestIdOf = (hctx: HandlerContext): string => hctx.values.get(REQUEST_ID) ?? requestIdFrom(hctx.requestHeader.get('x-request-id') ?? undefined);

/** A unary call: runConnect, then the x-request-id and rate-limit response headers. `inputField`: the request field holding the operation input (violations are reported under it). */
export async function call<I, O>(deps: AppDeps, op: Operation<I, O, any>, input: unknown, hctx: HandlerContext, inputField?: string): Promise<O> {
  hctx.responseHeader.set('x-request-id', requestIdOf(hctx));
  const r = await runConnect(deps, op, input, hctx, { inputField });
  if (r.rateLimit) setRateLimitHeaders((k, v) => hctx.responseHeader.set(k, String(v)), r.rateLimit);
  return r.output;
}

// The one Connect call path: request id, authorization (or the web session the request gate
// resolved) and Idempotency-Key from the headers ->
// runOperation -> rate-limit headers; DomainErrors become ConnectErrors with their details.
import { createContextKey, type HandlerContext } from '@connectrpc/connect';
import type { AppDeps } from '../../app/deps.js';
import { runOperation } from '../../app/run-operation.js';
import type { Logger, Operation } from '../../domain/context.js';
import { DomainError } from '../../domain/errors.js';
import { toConnectError } from './errors.js';
import { requestIdFrom } from '../http/request-id.js';
import { setRateLimitHeaders } from '../http/response-headers.js';
import { SESSION_PRINCIPAL } from './session-auth.js';

/** The call's request id, chosen by the request gate (serving.ts) before the body is read. */
export const REQUEST_ID = createContextKey<string | undefined>(undefined, { description: 'x-request-id' });

/** `inputField`: the request field holding the operation input (violations are reported under it). */
export async function call<I, O>(deps: AppDeps, op: Operation<I, O, any>, input: unknown, hctx: HandlerContext, inputField?: string): Promise<O> {
  const requestId = hctx.values.get(REQUEST_ID) ?? requestIdFrom(hctx.requestHeader.get('x-request-id') ?? undefined);
  hctx.responseHeader.set('x-request-id', requestId);
  try {
    const r = await runOperation(deps, op, {
      surface: 'connect',
      channel: 'v1',
      requestId,
      authorization: hctx.requestHeader.get('authorization') ?? undefined,
      // A web session's user, resolved by the request gate (serving.ts; session-auth.ts).
      authenticated: hctx.values.get(SESSION_PRINCIPAL),
      idempotencyKey: hctx.requestHeader.get('idempotency-key') ?? undefined,
      input,
      log: deps.log.child({ requestId, procedure: hctx.method.name }) as Logger,
    });
    if (r.rateLimit) setRateLimitHeaders((k, v) => hctx.responseHeader.set(k, String(v)), r.rateLimit);
    return r.output;
  } catch (err) {
    throw err instanceof DomainError ? toConnectError(err, inputField) : err;
  }
}

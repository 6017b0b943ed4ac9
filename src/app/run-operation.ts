// The one pipeline every surface goes through:
// authenticate -> rate limit -> validate (the operation's own schema + context rules) ->
// idempotency -> handler (own EntityManager fork; writes in transactions) -> log.
import { createHash } from 'node:crypto';
import { existingEm, LazyEmContext, type Channel, type Logger, type OpContext, type Operation, type Principal, type Surface } from '../domain/context.js';
import { DomainError, validationFailed, type Issue, type RateLimitInfo } from '../domain/errors.js';
import { authenticate } from '../domain/tokens/authenticate.js';
import { hasScope } from '../domain/tokens/scopes.rules.js';
import { StalePrincipalError } from '../domain/tokens/principal-cache.js';
import { textIssues, zodToIssues } from '../domain/validation.js';
import type { AppDeps } from './deps.js';
import { LazyChildLogger } from './lazy-logger.js';
import type { RateWindow } from '../infra/rate-limit/rate-limiter.js';
import { tracing, type FailureInfo, type Tracer } from '../infra/tracing/tracing.js';

export const INBOUND_RATE_LIMIT = 60;
export const INBOUND_RATE_WINDOW_MS = 60_000;
/**
 * Inbound tokens' request budget: every authenticated call that is not a publish (read-back,
 * resolve, supplement, event types, pings). A window of its own, so reads never use up the
 * 60/min publish budget (the documented "REST v1 request budget" of X-RateLimit-Limit).
 */
export const INBOUND_REQUEST_LIMIT = 600;
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
const IDEMPOTENCY_LOCK_MS = 60_000;
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,200}$/;

export interface Invocation {
  surface: Surface;
  channel?: Channel;
  requestId: string;
  authorization?: string;
  idempotencyKey?: string;
  input: unknown;
  log: Logger;
  /** `X-Caller-Tools-Token` (only the 422 inbound-no-approval probe reads it). */
  callerToolsToken?: string;
  /** CLI only: operator principal. */
  system?: boolean;
  /**
   * Who this transport request was already authenticated as, with the SAME `authorization`, by an
   * earlier operation of the same request (RunResult.principal). The MCP surface authenticates
   * once per POST and hands it to each tools/call: no second token lookup per call. Used only
   * when it is an agent principal and the operation takes agent tokens; anything else
   * authenticates as usual.
   */
  authenticated?: Principal;
}

export interface RunResult<O> {
  output: O;
  replayed: boolean;
  rateLimit?: RateLimitInfo;
  /** Who the call was authenticated as (see Invocation.authenticated). */
  principal: Principal;
}

export async function runOperation<I, O, P extends Principal>(deps: AppDeps, op: Operation<I, O, P>, inv: Invocation): Promise<RunResult<O>> {
  deps.load.enter();
  // Every operation of every surface is measured here, once (docs/metrics.md).
  const meter = deps.metrics.operation(op.name, inv.surface);
  const started = performance.now();
  try {
    const tracer = tracing.tracer;
    const result = tracer === null ? await run(deps, op, inv, undefined) : await tracedRun(tracer, deps, op, inv);
    meter.succeeded(performance.now() - started, result.output, result.replayed);
    return result;
  } catch (err) {
    const de = err instanceof DomainError ? err : undefined;
    meter.failed(performance.now() - started, de?.kind ?? 'internal', de?.code ?? 'internal');
    throw err;
  } finally {
    deps.load.leave();
  }
}

/** A span per operation (child of the route / RPC / tool span); its statements are its children. */
function tracedRun<I, O, P extends Principal>(tracer: Tracer, deps: AppDeps, op: Operation<I, O, P>, inv: Invocation): Promise<RunResult<O>> {
  return tracer.inSpan(op.name, 'internal', { 'fluxdesk.operation': op.name, 'fluxdesk.surface': inv.surface, 'fluxdesk.channel': inv.channel }, async (span) => {
    const result = await run(deps, op, inv, undefined);
    if (result.replayed) span.setAttribute('fluxdesk.replayed', true);
    return result;
  }, operationFailure);
}

/** A refused call (4xx) is an outcome, not a fault: only internal / unavailable mark the span failed. */
function operationFailure(err: unknown): FailureInfo {
  if (!(err instanceof DomainError)) return { type: 'internal', fault: true, kind: 'internal' };
  return { type: err.code, fault: err.kind === 'internal' || err.kind === 'unavailable', kind: err.kind };
}

/**
 * A second pass after a call served from the principal cache failed (tokens/principal-cache.ts):
 * the principal is looked up afresh, and a window hit the first pass counted (`counted`) is not
 * counted again (a refused hit counts nothing: it is tried again).
 */
interface FreshPass {
  counted: RateLimitInfo | undefined;
}

async function run<I, O, P extends Principal>(deps: AppDeps, op: Operation<I, O, P>, inv: Invocation, fresh: FreshPass | undefined): Promise<RunResult<O>> {
  const log = new LazyChildLogger(inv.log, { op: op.name, surface: inv.surface });
  let made: OpContext<P> | undefined;
  let rateLimit: RateLimitInfo | undefined;
  // A cached principal is unproven: every failure (401, 403, 400, 429, or a write that found the
  // token's rows changed) is decided by a fresh pass instead, before any of its side effects.
  let unverified = false;

  try {
    if (op.auth.kind === 'system' && !inv.system) throw new DomainError('forbidden', 'operator-only operation', { code: 'forbidden' });
    let principal: P;
    try {
      const reuse = inv.authenticated?.type === 'agent' && op.auth.kind === 'agent';
      // Token lookups are statements on the shared connection (no unit of work): the root EntityManager serves.
      // A keyed request (Idempotency-Key) may replay a stored answer: never on a cached principal.
      principal = (reuse
        ? inv.authenticated
        : await authenticate(deps.orm.em, op.auth, inv.authorization, deps.clock, { fresh: fresh !== undefined || inv.idempotencyKey !== undefined })) as P;
    } catch (err) {
      if (err instanceof DomainError && op.onUnauthenticated) throw await op.onUnauthenticated(err, inv.input, { em: deps.orm.em.fork(), clock: deps.clock, callerToolsToken: inv.callerToolsToken });
      throw err;
    }
    unverified = principal.type === 'inbound_token' && principal.unverified !== undefined;
    const ctx: OpContext<P> = (made = new LazyEmContext(principal, inv.requestId, inv.surface, inv.channel ?? 'v1', log, deps.clock, deps.config, deps.orm.em));

    // Counted before the scope check: a call refused for a missing scope is an authenticated call too.
    if (op.rateLimited && principal.type !== 'system') rateLimit = fresh?.counted ?? (await applyRateLimit(deps, principal, op.rateLimited, log, unverified));
    if (principal.type === 'agent' && op.requiredScopes && !hasScope(principal.scopes, op.requiredScopes)) {
      throw new DomainError('forbidden', `missing scope: ${op.requiredScopes.join(' or ')}`, { code: 'missing_scope', extra: { required_scope: op.requiredScopes[0] } });
    }

    const raw = op.prepare ? op.prepare(inv.input, ctx) : inv.input;
    // reportInput: zodToIssues tells a missing field (`required`) from a wrong type (`invalid_type`) by the input.
    const parsed = op.input.safeParse(raw, { reportInput: true });
    const issues: Issue[] = parsed.success ? [] : zodToIssues(parsed.error, op.keyPolicy);
    // Unsafe text (controls, unpaired surrogates) in any field, for every operation of every surface.
    // Context rules may look values up in the database: they never see such text.
    const unsafe = textIssues(raw);
    if (unsafe.length > 0) issues.push(...unsafe);
    else if (op.contextRules) issues.push(...op.contextRules(raw, ctx));
    if (issues.length > 0 || !parsed.success) {
      if (unverified) throw new StalePrincipalError();
      if (op.onRejected) await op.onRejected(issues, raw, ctx).catch((err) => log.warn({ err }, 'could not audit a rejected request'));
      throw validationFailed(issues);
    }
    const input = parsed.data;

    if (inv.idempotencyKey === undefined || !op.idempotent) {
      return { output: await op.handler(input, ctx), replayed: false, rateLimit, principal };
    }
    return await withIdempotency(deps, op, ctx, inv.idempotencyKey, inv.input, rateLimit, () => op.handler(input, ctx));
  } catch (err) {
    if (unverified) return run(deps, op, inv, { counted: rateLimit });
    const de = toDomainError(err, log);
    // A call that was counted reports its budget even when it fails (inbound protocol 9).
    throw rateLimit && !de.rateLimit ? de.withRateLimit(rateLimit) : de;
  } finally {
    if (made) existingEm(made)?.clear();
  }
}

type Windows = Array<RateWindow & { label: string }>;
const AGENT_WINDOWS: Windows = [
  { suffix: '', limit: 60, windowMs: 60_000, label: 'per minute' },
  { suffix: ':day', limit: 5000, windowMs: 24 * 60 * 60 * 1000, label: 'per day' },
];
/**
 * Windows per principal kind and Operation.rateLimited: inbound tokens 60/min for publishing and
 * 600/min (own key) for every other call; agent tokens 60/min and 5000/day for every call.
 */
const WINDOWS: Record<'inbound_token' | 'agent', Record<'publish' | 'requests', Windows>> = {
  inbound_token: {
    publish: [{ suffix: '', limit: INBOUND_RATE_LIMIT, windowMs: INBOUND_RATE_WINDOW_MS, label: 'per minute' }],
    requests: [{ suffix: ':req', limit: INBOUND_REQUEST_LIMIT, windowMs: INBOUND_RATE_WINDOW_MS, label: 'per minute' }],
  },
  agent: { publish: AGENT_WINDOWS, requests: AGENT_WINDOWS },
};

/**
 * Every window of the budget that applies (principal kind and Operation.rateLimited) in ONE store
 * round trip (hitAll): counted in all of them only when all allow it, so a call refused by one
 * window uses up none. The first window's figures go in the X-RateLimit-* headers (so a read
 * reports the request budget, a publish the publish budget); a refusal reports the first window
 * that refused.
 */
async function applyRateLimit(deps: AppDeps, principal: Principal, budget: true | 'requests', log: Logger, unverified: boolean): Promise<RateLimitInfo | undefined> {
  if (principal.type === 'system') return undefined;
  const nowMs = deps.clock.now().getTime();
  const windows = WINDOWS[principal.type][budget === true ? 'publish' : 'requests'];
  let decisions;
  try {
    decisions = await deps.rateLimiter.hitAll(`tok:${principal.tokenId}`, windows, nowMs);
  } catch (err) {
    // Fails open: event intake stays available when Redis is down (dedup still holds in PostgreSQL).
    deps.metrics.storeUnavailable('rate_limit', 'fail_open');
    log.warn({ err: { message: (err as Error).message } }, 'rate-limit store unavailable; request allowed');
    return undefined;
  }
  const refused = decisions.findIndex((d) => !d.allowed);
  if (refused >= 0) {
    const d = decisions[refused]!;
    // A refusal on an unverified principal is decided again by the fresh pass: counted there.
    if (!unverified) deps.metrics.rateLimitDenied(principal.type === 'agent' ? 'agent' : budget === true ? 'inbound_publish' : 'inbound_requests', windows[refused]!.suffix === ':day' ? 'day' : 'minute');
    const retryAfterSeconds = Math.max(1, Math.ceil((d.resetAtMs - nowMs) / 1000));
    throw new DomainError('rate_limited', `rate limit of ${d.limit} requests ${windows[refused]!.label} exceeded`, { code: 'rate_limited', rateLimit: { ...rateInfo(decisions[refused]!), retryAfterSeconds } });
  }
  return rateInfo(decisions[0]!);
}

function rateInfo(d: { limit: number; remaining: number; resetAtMs: number }): RateLimitInfo {
  return { limit: d.limit, remaining: d.remaining, resetAtUnix: Math.ceil(d.resetAtMs / 1000) };
}

async function withIdempotency<O>(
  deps: AppDeps,
  op: Operation<unknown, O, never> | Operation<any, O, any>,
  ctx: OpContext,
  key: string,
  rawInput: unknown,
  rateLimit: RateLimitInfo | undefined,
  run: () => Promise<O>,
): Promise<RunResult<O>> {
  if (!IDEMPOTENCY_KEY.test(key)) {
    throw validationFailed([{ field: 'Idempotency-Key', code: 'invalid_format', message: 'must be 1-200 visible ASCII characters' }]);
  }
  const principalKey = ctx.principal.type === 'system' ? 'system' : ctx.principal.tokenId;
  const storeKey = `${principalKey}:${op.name}:${key}`;
  const fingerprint = createHash('sha256').update(canonicalJson(rawInput)).digest('hex');
  let begun;
  try {
    begun = await deps.idempotency.begin(storeKey, fingerprint, IDEMPOTENCY_LOCK_MS);
  } catch (err) {
    // Fails closed: without the store we cannot promise exactly-once for a keyed request.
    deps.metrics.storeUnavailable('idempotency', 'fail_closed');
    ctx.log.warn({ err: { message: (err as Error).message } }, 'idempotency store unavailable');
    throw new DomainError('unavailable', 'idempotency store unavailable; retry later', { code: 'idempotency_unavailable', retryAfterSeconds: 1 });
  }
  deps.metrics.idempotency(begun.state);
  if (begun.state === 'mismatch') throw new DomainError('conflict', 'Idempotency-Key was already used with a different request body', { code: 'idempotency_key_reused' });
  if (begun.state === 'in_flight') throw new DomainError('conflict', 'a request with this Idempotency-Key is still in progress', { code: 'idempotency_in_flight', retryAfterSeconds: 1 });
  if (begun.state === 'replay') return { output: begun.response.output as O, replayed: true, rateLimit, principal: ctx.principal };
  try {
    const output = await run();
    await deps.idempotency.complete(storeKey, fingerprint, { output }, IDEMPOTENCY_TTL_MS).catch((err) => ctx.log.warn({ err: { message: (err as Error).message } }, 'could not store idempotent response'));
    return { output, replayed: false, rateLimit, principal: ctx.principal };
  } catch (err) {
    await deps.idempotency.abandon(storeKey, fingerprint).catch(() => undefined);
    throw err;
  }
}

/** Key order does not change the fingerprint. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`).join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', '57P01', '57P02', '57P03', '08000', '08001', '08003', '08006']);

/** Unexpected errors are logged once with their cause and answered generically. */
export function toDomainError(err: unknown, log: Logger): DomainError {
  if (err instanceof DomainError) return err;
  const e = err as { code?: string; name?: string; message?: string; cause?: { code?: string } };
  const code = e?.code ?? e?.cause?.code;
  if ((code && CONNECTION_CODES.has(code)) || /Connection|terminat|ECONNREFUSED|Connection terminated/i.test(`${e?.name} ${e?.message}`)) {
    log.error({ err }, 'database unavailable');
    return new DomainError('unavailable', 'storage temporarily unavailable; retry later', { code: 'unavailable', retryAfterSeconds: 5, cause: err });
  }
  if (code === '40P01' || code === '40001') {
    // Lost a deadlock or a serialization conflict after the retries where they are expected: nothing
    // was written; a retry succeeds (a transient condition, not the caller's input).
    log.warn({ err }, 'transaction conflict');
    return new DomainError('unavailable', 'a concurrent request held the same rows; retry', { code: 'conflict_retry', retryAfterSeconds: 1, cause: err });
  }
  log.error({ err }, 'unexpected error');
  return new DomainError('internal', 'internal error; retry', { code: 'internal', cause: err });
}

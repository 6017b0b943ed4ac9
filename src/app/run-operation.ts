// The one pipeline every surface goes through:
// authenticate -> rate limit -> validate (the operation's own schema + context rules) ->
// idempotency -> handler (own EntityManager fork; a writing operation in ONE transaction, flushed
// once, its afterCommit effects after the commit) -> log. An operation calls another through
// ctx.call (NestedCalls below): scopes and validation again, no second lookup or rate-limit hit.
import { createHash } from 'node:crypto';
import stringify from 'safe-stable-stringify';
import type { CallOptions, Channel, Logger, OpContext, Operation, Surface } from '../domain/context.js';
import { existingEm, LazyEmContext, type OperationCaller } from './lazy-em-context.js';
import type { Principal } from '../domain/principal.js';
import { DomainError, validationFailed, type Issue, type RateLimitInfo } from '../domain/errors.js';
import { budgetFor, RATE_BUDGETS, windowTag, type BudgetName, type CallerKind, type OperationBudget } from '../domain/rate-budgets.rules.js';
import { authenticate } from '../domain/tokens/authenticate.js';
import { REQUEST_LIMITS } from '../domain/request.limits.js';
import { hasScope } from '../domain/tokens/scopes.rules.js';
import { StalePrincipalError } from '../domain/tokens/token-directory.js';
import { textIssues, zodToIssues } from '../domain/validation.js';
import type { AppDeps } from './deps.js';
import { LazyChildLogger } from './lazy-logger.js';
import type { FailureInfo, Tracer } from '../infra/tracing/tracing.js';
import { isConnectionFailure, isTransientConflict, sqlState } from '../infra/db/sql-state.js';

export const IDEMPOTENCY_TTL_MS = REQUEST_LIMITS.idempotencyKeptHours * 60 * 60 * 1000;
const IDEMPOTENCY_LOCK_MS = 60_000;
const IDEMPOTENCY_KEY = new RegExp(`^[\\x21-\\x7e]{1,${REQUEST_LIMITS.idempotencyKeyMax}}$`);

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
    const tracer = deps.tracer;
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
  return tracer.inSpan(
    op.name,
    'internal',
    { 'fluxdesk.operation': op.name, 'fluxdesk.surface': inv.surface, 'fluxdesk.channel': inv.channel },
    async (span) => {
      const result = await run(deps, op, inv, undefined);
      if (result.replayed) span.setAttribute('fluxdesk.replayed', true);
      return result;
    },
    operationFailure,
  );
}

/** A refused call (4xx) is an outcome, not a fault: only internal / unavailable mark the span failed. */
function operationFailure(err: unknown): FailureInfo {
  if (!(err instanceof DomainError)) return { type: 'internal', fault: true, kind: 'internal' };
  return { type: err.code, fault: err.kind === 'internal' || err.kind === 'unavailable', kind: err.kind };
}

/**
 * A second pass after a call served from the principal cache failed (infra/tokens/principal-cache.ts):
 * the principal is looked up afresh, and a window hit the first pass counted (`counted`) is not
 * counted again (a refused hit counts nothing: it is tried again).
 */
interface FreshPass {
  counted: RateLimitInfo | undefined;
}

async function run<I, O, P extends Principal>(deps: AppDeps, op: Operation<I, O, P>, inv: Invocation, fresh: FreshPass | undefined): Promise<RunResult<O>> {
  const log = new LazyChildLogger(inv.log, { op: op.name, surface: inv.surface });
  let made: LazyEmContext<P> | undefined;
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
      principal = (
        reuse
          ? inv.authenticated
          : await authenticate(deps.ports.tokens, op.auth, inv.authorization, deps.clock, { fresh: fresh !== undefined || inv.idempotencyKey !== undefined })
      ) as P;
    } catch (err) {
      if (err instanceof DomainError && op.onUnauthenticated)
        throw await op.onUnauthenticated(err, inv.input, {
          em: deps.orm.em.fork(),
          clock: deps.clock,
          tokens: deps.ports.tokens,
          callerToolsToken: inv.callerToolsToken,
        });
      throw err;
    }
    unverified = principal.type === 'inbound_token' && principal.unverified !== undefined;
    const ctx = (made = new LazyEmContext(
      principal,
      inv.requestId,
      inv.surface,
      inv.channel ?? 'v1',
      log,
      deps.clock,
      deps.config,
      deps.ports,
      deps.orm.em,
      NESTED_CALLS,
    ));

    // Counted before the scope check: a call refused for a missing scope is an authenticated call too.
    if (op.budget !== null && principal.type !== 'system')
      rateLimit = fresh?.counted ?? (await applyRateLimit(deps, principal, op.budget, log, unverified, op.budgetCost?.(inv.input) ?? 1));
    checkScopes(op, principal);

    const raw = op.prepare ? op.prepare(inv.input, ctx) : inv.input;
    const checked = validate(op, raw, ctx);
    if (!checked.ok) {
      if (unverified) throw new StalePrincipalError();
      if (op.onRejected) await op.onRejected(checked.issues, raw, ctx).catch((err) => log.warn({ err }, 'could not audit a rejected request'));
      throw validationFailed(checked.issues);
    }
    const input = checked.input;

    if (inv.idempotencyKey === undefined || !op.idempotent) {
      return { output: await execute(op, input, ctx), replayed: false, rateLimit, principal };
    }
    return await withIdempotency(deps, op, ctx, inv.idempotencyKey, inv.input, rateLimit, () => execute(op, input, ctx));
  } catch (err) {
    if (unverified) return run(deps, op, inv, { counted: rateLimit });
    const de = toDomainError(err, log);
    // A call that was counted reports its budget even when it fails (inbound protocol 9).
    throw rateLimit && !de.rateLimit ? de.withRateLimit(rateLimit) : de;
  } finally {
    if (made) existingEm(made)?.clear();
  }
}

function checkScopes(op: Operation<any, any, any>, principal: Principal): void {
  if (principal.type === 'agent' && op.requiredScopes && !hasScope(principal.scopes, op.requiredScopes)) {
    throw new DomainError('forbidden', `missing scope: ${op.requiredScopes.join(' or ')}`, {
      code: 'missing_scope',
      extra: { required_scope: op.requiredScopes[0] },
    });
  }
}

/** The operation's own schema, unsafe text and its context rules: every issue at once. */
function validate<I, P extends Principal>(
  op: Operation<I, unknown, P>,
  raw: unknown,
  ctx: OpContext<P>,
): { ok: true; input: I } | { ok: false; issues: Issue[] } {
  // reportInput: zodToIssues tells a missing field (`required`) from a wrong type (`invalid_type`) by the input.
  const parsed = op.input.safeParse(raw, { reportInput: true });
  const issues: Issue[] = parsed.success ? [] : zodToIssues(parsed.error, op.keyPolicy);
  // Unsafe text (controls, unpaired surrogates) in any field, for every operation of every surface.
  // Context rules may look values up in the database: they never see such text.
  const unsafe = textIssues(raw);
  if (unsafe.length > 0) issues.push(...unsafe);
  else if (op.contextRules) issues.push(...op.contextRules(raw, ctx));
  if (issues.length > 0 || !parsed.success) return { ok: false, issues };
  return { ok: true, input: parsed.data };
}

/**
 * Tries of a writing operation's transaction. One that lost a deadlock (40P01) or a serialization
 * conflict (40001) is rolled back by PostgreSQL and runs again from the start on a fresh identity
 * map: safe, because nothing of it is visible and none of its afterCommit effects ran (they wait
 * for the commit; handlers make no other side effect). After the last try the conflict is answered
 * 503 conflict_retry (toDomainError). A nested call never retries: its caller's transaction does.
 */
const WRITE_ATTEMPTS = 3;

/**
 * The handler, in one transaction when the operation writes (`ctx.em` is the transaction's
 * EntityManager; MikroORM flushes it once before COMMIT), then its afterCommit effects. An
 * operation that does not write gets no transaction and no fork of its own making.
 */
async function execute<I, O, P extends Principal>(op: Operation<I, O, P>, input: I, ctx: LazyEmContext<P>): Promise<O> {
  if (!op.writes) {
    const output = await op.handler(input, ctx);
    await runEffects(ctx);
    return output;
  }
  for (let attempt = 1; ; attempt++) {
    try {
      const output = await ctx.em.transactional((tx) => ctx.withTransaction(tx, () => op.handler(input, ctx)));
      await runEffects(ctx);
      return output;
    } catch (err) {
      ctx.reset();
      if (attempt >= WRITE_ATTEMPTS || !isTransientConflict(err)) throw err;
      ctx.log.debug({ attempt, code: sqlState(err) }, 'transaction conflict; running the operation again');
      await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20 * attempt));
    }
  }
}

/** Effects run in registration order, each awaited (the answer waits for them); a failure is logged, never thrown. */
async function runEffects(ctx: LazyEmContext<any>): Promise<void> {
  const effects = ctx.takeEffects();
  if (!effects) return;
  for (const effect of effects) {
    try {
      await effect();
    } catch (err) {
      ctx.log.error({ err }, 'an after-commit effect failed');
    }
  }
}

/**
 * ctx.call: another operation through the runner, inside the calling one. Its scopes and its
 * input validation apply (prepare, schema, unsafe text, context rules; onRejected is not run:
 * the caller answers for its own input). The principal is reused (or replaced by `options.as`,
 * which the caller vouches for), so there is no second token lookup, no rate-limit hit and no
 * Idempotency-Key (the outer call has them). In a caller's transaction the inner operation runs
 * in it (a writing one in a savepoint, so both commit or neither does) and hands its effects to
 * the caller's commit; otherwise it runs as a call of its own (its own transaction if it writes).
 */
class NestedCalls implements OperationCaller {
  async call<I, O, Q extends Principal>(from: LazyEmContext<any>, op: Operation<I, O, Q>, rawInput: unknown, options: CallOptions | undefined): Promise<O> {
    const principal = (options?.as ?? from.principal) as Q;
    checkAuthKind(op, principal);
    checkScopes(op, principal);
    const ctx = new LazyEmContext<Q>(principal, from.requestId, from.surface, from.channel, from.log, from.clock, from.config, from.ports, from.root, this);
    const joined = from.inTransaction;
    if (joined) ctx.joinCaller(from);
    try {
      const raw = op.prepare ? op.prepare(rawInput, ctx) : rawInput;
      const checked = validate(op, raw, ctx);
      if (!checked.ok) throw options?.onInvalid ? options.onInvalid(checked.issues) : validationFailed(checked.issues);
      if (!joined) return await execute(op, checked.input, ctx);
      if (!op.writes) return await op.handler(checked.input, ctx);
      return await ctx.em.transactional((tx) => ctx.withTransaction(tx, () => op.handler(checked.input, ctx)));
    } finally {
      if (!joined) existingEm(ctx)?.clear();
    }
  }
}
const NESTED_CALLS = new NestedCalls();

/** The principal must be one the operation's own authentication would accept (a programming error otherwise). */
function checkAuthKind(op: Operation<any, any, any>, p: Principal): void {
  const a = op.auth;
  const ok =
    a.kind === 'none' ||
    (a.kind === 'system' && p.type === 'system') ||
    (a.kind === 'agent' && p.type === 'agent') ||
    (a.kind === 'inbound' && p.type === 'inbound_token' && a.tokenKinds.includes(p.kind));
  if (!ok) throw new DomainError('forbidden', `${op.name} does not accept this caller`, { code: 'forbidden' });
}

/** Who is counted: a web session (AgentPrincipal.viaSession) has budgets of its own, apart from agent tokens'. */
function callerKind(principal: Exclude<Principal, { type: 'system' }>): CallerKind {
  if (principal.type === 'inbound_token') return 'inbound_token';
  return principal.viaSession ? 'web_session' : 'agent_token';
}

/**
 * Every window of the budget the call counts against (domain/rate-budgets.rules.ts: the one the
 * operation names, or the one that replaces it for this kind of caller) in ONE store round trip
 * (hitAll): counted in all of them only when all allow it, so a call refused by one window uses up
 * none. The first window's figures go in the X-RateLimit-* headers (so a read reports the request
 * budget, a publish the publish budget); a refusal reports the first window that refused.
 */
async function applyRateLimit(
  deps: AppDeps,
  principal: Principal,
  declared: OperationBudget,
  log: Logger,
  unverified: boolean,
  cost: number,
): Promise<RateLimitInfo | undefined> {
  if (principal.type === 'system') return undefined;
  const name = budgetFor(declared, callerKind(principal));
  // A refusal on an unverified principal is decided again by the fresh pass: counted there.
  return hitBudget(deps, name, windowTag(name, principal.tokenId), log, !unverified, cost);
}

/** The budget a caller's calls of an operation naming `declared` count against (tokens/self reports it). */
export function callerBudget(principal: Exclude<Principal, { type: 'system' }>, declared: OperationBudget): BudgetName {
  return budgetFor(declared, callerKind(principal));
}

/**
 * One hit of `tag` in every window of budget `name`, in one store round trip; a refusal is a
 * DomainError `rate_limited` with Retry-After (and a denial in the metrics when `countDenial`).
 * Fails open: requests stay served when Redis is down (publish dedup still holds in PostgreSQL).
 * The per-token windows above and the sign-in routes' per-address ones (address-limit.ts) alike.
 */
export async function hitBudget(deps: AppDeps, name: BudgetName, tag: string, log: Logger, countDenial = true, cost = 1): Promise<RateLimitInfo | undefined> {
  const nowMs = deps.clock.now().getTime();
  const budget = RATE_BUDGETS[name];
  let decisions: Awaited<ReturnType<AppDeps['rateLimiter']['hitAll']>>;
  try {
    decisions = await deps.rateLimiter.hitAll(tag, budget.windows, nowMs, cost);
  } catch (err) {
    deps.metrics.storeUnavailable('rate_limit', 'fail_open');
    log.warn({ err: { message: (err as Error).message } }, 'rate-limit store unavailable; request allowed');
    return undefined;
  }
  const refused = decisions.findIndex((d) => !d.allowed);
  if (refused >= 0) {
    const d = decisions[refused]!;
    const window = budget.windows[refused]!;
    if (countDenial) deps.metrics.rateLimitDenied(budget.metricsLabel, window.per);
    const retryAfterSeconds = Math.max(1, Math.ceil((d.resetAtMs - nowMs) / 1000));
    const message =
      cost > 1
        ? `${cost} requests at once do not fit the rate limit of ${d.limit} requests per ${window.per}`
        : `rate limit of ${d.limit} requests per ${window.per} exceeded`;
    throw new DomainError('rate_limited', message, {
      code: 'rate_limited',
      rateLimit: { ...rateInfo(d), retryAfterSeconds },
    });
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
    throw validationFailed([
      { field: 'Idempotency-Key', code: 'invalid_format', message: `must be 1-${REQUEST_LIMITS.idempotencyKeyMax} visible ASCII characters` },
    ]);
  }
  const principalKey = ctx.principal.type === 'system' ? 'system' : ctx.principal.tokenId;
  const storeKey = `${principalKey}:${op.name}:${key}`;
  const fingerprint = createHash('sha256').update(fingerprintJson(rawInput)).digest('hex');
  let begun: Awaited<ReturnType<AppDeps['idempotency']['begin']>>;
  try {
    begun = await deps.idempotency.begin(storeKey, fingerprint, IDEMPOTENCY_LOCK_MS);
  } catch (err) {
    // Fails closed: without the store we cannot promise exactly-once for a keyed request.
    deps.metrics.storeUnavailable('idempotency', 'fail_closed');
    ctx.log.warn({ err: { message: (err as Error).message } }, 'idempotency store unavailable');
    throw new DomainError('unavailable', 'idempotency store unavailable; retry later', { code: 'idempotency_unavailable', retryAfterSeconds: 1 });
  }
  deps.metrics.idempotency(begun.state);
  if (begun.state === 'mismatch')
    throw new DomainError('conflict', 'Idempotency-Key was already used with a different request body', { code: 'idempotency_key_reused' });
  if (begun.state === 'in_flight')
    throw new DomainError('conflict', 'a request with this Idempotency-Key is still in progress', { code: 'idempotency_in_flight', retryAfterSeconds: 1 });
  if (begun.state === 'replay') return { output: begun.response.output as O, replayed: true, rateLimit, principal: ctx.principal };
  try {
    const output = await run();
    await deps.idempotency
      .complete(storeKey, fingerprint, { output }, IDEMPOTENCY_TTL_MS)
      .catch((err) => ctx.log.warn({ err: { message: (err as Error).message } }, 'could not store idempotent response'));
    return { output, replayed: false, rateLimit, principal: ctx.principal };
  } catch (err) {
    await deps.idempotency.abandon(storeKey, fingerprint).catch(() => undefined);
    throw err;
  }
}

/**
 * The body as JSON with keys sorted at every level, so key order does not change the fingerprint
 * (safe-stable-stringify: the same text the former hand-written canonical form gave for any JSON
 * body, so records stored before stay valid).
 */
export function fingerprintJson(v: unknown): string {
  return stringify(v) ?? 'null';
}

/** Unexpected errors are logged once with their cause and answered generically. */
export function toDomainError(err: unknown, log: Logger): DomainError {
  if (err instanceof DomainError) return err;
  const e = err as { name?: string; message?: string } | null;
  if (isConnectionFailure(err) || /Connection|terminat|ECONNREFUSED|Connection terminated/i.test(`${e?.name} ${e?.message}`)) {
    log.error({ err }, 'database unavailable');
    return new DomainError('unavailable', 'storage temporarily unavailable; retry later', { code: 'unavailable', retryAfterSeconds: 5, cause: err });
  }
  if (isTransientConflict(err)) {
    // Lost a deadlock or a serialization conflict after the retries where they are expected: nothing
    // was written; a retry succeeds (a transient condition, not the caller's input).
    log.warn({ err }, 'transaction conflict');
    return new DomainError('unavailable', 'a concurrent request held the same rows; retry', { code: 'conflict_retry', retryAfterSeconds: 1, cause: err });
  }
  log.error({ err }, 'unexpected error');
  return new DomainError('internal', 'internal error; retry', { code: 'internal', cause: err });
}

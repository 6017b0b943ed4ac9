// Request-scoped data travels explicitly: every operation receives an OpContext.
import type { EntityManager } from '@mikro-orm/core';
import type { z } from 'zod';
import type { DomainError, Issue } from './errors.js';
import type { Ports } from './ports.js';
import type { TokenDirectory } from './tokens/token-directory.js';

export interface Clock {
  now(): Date;
}

export interface Logger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
  child(bindings: object): Logger;
}

/** Where a call came in: the HTTP API (REST v1, the older endpoints, Connect, MCP), the operator CLI, or the web app's own sign-in pages. */
export type Surface = 'rest' | 'legacy' | 'connect' | 'mcp' | 'cli' | 'web';

/** Which inbound rules apply: `/api/v1` enforces the namespace; the older endpoint is lenient. */
export type Channel = 'v1' | 'legacy';

export type TokenKind = 'personal' | 'moderation' | 'tools_claim';

export interface InboundTokenPrincipal {
  type: 'inbound_token';
  tokenId: string;
  kind: TokenKind;
  userId: string;
  userEmail: string;
  userRole: string;
  integratorId: string;
  integratorSlug: string;
  allowedEventPrefix: string;
  label: string;
  dailyLimit: number;
  /**
   * Set when the principal was served from the in-process principal cache
   * (infra/tokens/principal-cache.ts) and is not yet proven current: the row versions it was read at.
   * Only the statement that writes the operation's result may prove it (it writes nothing unless
   * the token, owner and integrator rows are still at these versions); a failure of any kind
   * sends the call back through a fresh lookup (runOperation).
   */
  unverified?: PrincipalVersions;
}

/** Row versions (PostgreSQL `xmin`) of a token, its owner and its integrator as they were read. */
export interface PrincipalVersions {
  token: string;
  user: string;
  integrator: string;
}

export interface AgentPrincipal {
  type: 'agent';
  tokenId: string;
  userId: string;
  userEmail: string;
  /** The user's display name, as read with the token (whoami / ping report it). */
  userName: string;
  userRole: string;
  scopes: string[];
  /**
   * Set when the caller is a person signed in to the web app (a session cookie, not an agent
   * token: transports/connect/session-auth.ts). tokenId is then the session id, and the calls
   * count against the session budget (app/run-operation.ts SESSION_WINDOWS), not the agent one.
   */
  viaSession?: true;
}

/** Operators on the machine (CLI); trusted. */
export interface SystemPrincipal {
  type: 'system';
}

export type Principal = InboundTokenPrincipal | AgentPrincipal | SystemPrincipal;

export interface DomainConfig {
  publicBaseUrl: string;
  allowedEmailDomains: readonly string[] | null;
  /**
   * EGRESS_ALLOW_HOSTS, normalised (allowHostSet): webhook targets that may be plain http or
   * loopback when an event is published; the callback client is built with the same list.
   */
  egressAllowHosts: ReadonlySet<string>;
}

export interface OpContext<P extends Principal = Principal> {
  principal: P;
  requestId: string;
  surface: Surface;
  channel: Channel;
  log: Logger;
  /**
   * The call's own EntityManager (identity map). runOperation forks it on first use (LazyEmContext).
   * In a writing operation (`Operation.writes`) it is the transaction's EntityManager: the runner
   * flushes it once and commits after the handler returns.
   */
  em: EntityManager;
  clock: Clock;
  config: DomainConfig;
  /** The event store and token directory (domain/ports.ts), built once in deps.ts. */
  ports: Ports;
  /**
   * A side effect that must not run inside the transaction (an HTTP call, a send to a queue that
   * is not in this database transaction, a cache invalidation): run after the call's commit (or,
   * for an operation that does not write, after its handler returned), never on a failure or a
   * rollback. Errors are logged, not thrown. Rows that must commit with the write (a nudge in the
   * outbox table, an audit row) are written through `em` instead.
   */
  afterCommit(effect: () => unknown): void;
  /**
   * Runs another operation through the runner (its scopes and its input validation apply; no
   * second token lookup, no rate-limit hit, no Idempotency-Key): as the same principal, or as
   * `options.as`, a principal the caller vouches for (read from rows it checked). When this call
   * is in a transaction, the inner operation runs in it (a writing one in a savepoint), and its
   * afterCommit effects wait for this call's commit. An operation on the publish path (its store
   * commits on connections of its own) is called from an operation that does not write.
   */
  call<I, O, Q extends Principal>(op: Operation<I, O, Q>, input: unknown, options?: CallOptions): Promise<O>;
}

export interface CallOptions {
  /** Run as this principal instead of the caller's (e.g. the sending token of a delivery). */
  as?: Principal;
  /**
   * The caller's own refusal for issues of the inner input (its field names are the inner
   * operation's); default: the inner operation's validation error as it is.
   */
  onInvalid?: (issues: Issue[]) => Error;
}

/** How a context runs another operation: implemented by app/run-operation.ts (the domain cannot import it). */
export interface OperationCaller {
  call<I, O, Q extends Principal>(from: LazyEmContext<any>, op: Operation<I, O, Q>, input: unknown, options: CallOptions | undefined): Promise<O>;
}

/**
 * The context runOperation builds for a call: its `em` is forked from `root` on first read, so a
 * call that only runs statements on the shared connection (the publish group commit) never pays
 * for a fork. A class (the getter and methods live on the prototype): building one per call
 * defines no property at run time. Do not spread it into a new object: `afterCommit` and `call`
 * live on the prototype; run another operation with `ctx.call`.
 */
export class LazyEmContext<P extends Principal = Principal> implements OpContext<P> {
  #fork: EntityManager | undefined;
  /** The transaction's EntityManager while the runner runs a writing handler. */
  #tx: EntityManager | undefined;
  /** Effects waiting for the commit; made on the first `afterCommit`. */
  #effects: Array<() => unknown> | undefined;
  /** A call inside another call's transaction hands its effects to that call (its commit is theirs). */
  #effectsOwner: LazyEmContext<any> | undefined;
  readonly #root: EntityManager;
  readonly #caller: OperationCaller | undefined;
  constructor(
    public principal: P,
    public requestId: string,
    public surface: Surface,
    public channel: Channel,
    public log: Logger,
    public clock: Clock,
    public config: DomainConfig,
    public ports: Ports,
    root: EntityManager,
    caller?: OperationCaller,
  ) {
    this.#root = root;
    this.#caller = caller;
  }
  get em(): EntityManager {
    return this.#tx ?? (this.#fork ??= this.#root.fork());
  }
  /** The EntityManager in use if one was made (never forks one). */
  get existingEm(): EntityManager | undefined {
    return this.#tx ?? this.#fork;
  }
  get root(): EntityManager {
    return this.#root;
  }
  /** Whether `em` is a transaction's EntityManager (the runner's, or the caller's for a nested call). */
  get inTransaction(): boolean {
    return this.#tx !== undefined;
  }

  afterCommit(effect: () => unknown): void {
    const owner = this.#effectsOwner ?? this;
    (owner.#effects ??= []).push(effect);
  }

  call<I, O, Q extends Principal>(op: Operation<I, O, Q>, input: unknown, options?: CallOptions): Promise<O> {
    if (!this.#caller) return Promise.reject(new Error(`ctx.call(${op.name}): this context was not made by the runner`));
    return this.#caller.call(this, op, input, options);
  }

  // --- for the runner (app/run-operation.ts) only ---

  /** Runs `fn` with `ctx.em` = `tx` (the transaction's EntityManager). */
  async withTransaction<T>(tx: EntityManager, fn: () => Promise<T>): Promise<T> {
    const before = this.#tx;
    this.#tx = tx;
    try {
      return await fn();
    } finally {
      this.#tx = before;
    }
  }
  /** A nested call's context uses the caller's transaction EntityManager and hands it its effects. */
  joinCaller(caller: LazyEmContext<any>): void {
    this.#tx = caller.#tx;
    this.#effectsOwner = caller.#effectsOwner ?? caller;
  }
  /** The effects registered so far, removed (run them after the commit, or drop them on a failure). */
  takeEffects(): Array<() => unknown> | undefined {
    const e = this.#effects;
    this.#effects = undefined;
    return e;
  }
  /** Before a retry: a fresh identity map, and the failed attempt's effects dropped. */
  reset(): void {
    this.#fork?.clear();
    this.#effects = undefined;
  }
}

/** The EntityManager of `ctx` if one exists already (never forks one). */
export function existingEm(ctx: OpContext<any>): EntityManager | undefined {
  return ctx instanceof LazyEmContext ? ctx.existingEm : ctx.em;
}

/** Who may call an operation. */
export type AuthRequirement =
  | { kind: 'none' }
  | { kind: 'system' }
  | {
      kind: 'inbound';
      tokenKinds: readonly TokenKind[];
      /**
       * Token kinds whose principal may come from the in-process principal cache (no lookup
       * statement): only for an operation whose one write proves `principal.unverified` current
       * in the same statement, and throws StalePrincipalError when it was not.
       */
      cachedKinds?: readonly TokenKind[];
    }
  | { kind: 'agent' };

export interface Operation<I, O, P extends Principal = Principal> {
  /** Stable name, e.g. `events.publish`; also the idempotency scope. */
  name: string;
  auth: AuthRequirement;
  /**
   * The rate budget a call counts against, by name (rate-budgets.rules.ts): `publish` or `request`
   * for inbound tokens, `agent` for agent tokens (a web session counts against `session` instead).
   * `null`: not counted; only for operator and unauthenticated operations, and agent.session (the
   * MCP surface counts each message itself).
   */
  budget: import('./rate-budgets.rules.js').OperationBudget | null;
  /** Agent callers: the scope this operation needs, as alternatives (any one suffices). */
  requiredScopes?: readonly string[];
  /** Mutating operations honour `Idempotency-Key`. */
  idempotent: boolean;
  input: z.ZodType<I>;
  /** How unknown top-level keys are reported (forbidden content keys, removed legacy keys). */
  keyPolicy?: { forbidden?: ReadonlySet<string>; legacy?: ReadonlyMap<string, string>; at?: string };
  /** Channel-specific normalisation before validation (e.g. the older endpoint's leniency). */
  prepare?: (raw: unknown, ctx: OpContext<P>) => unknown;
  /** Rules needing the caller or the clock; their issues are merged with the schema's. */
  contextRules?: (raw: unknown, ctx: OpContext<P>) => Issue[];
  /** Called when validation fails (e.g. to audit a rejected event). */
  onRejected?: (issues: Issue[], raw: unknown, ctx: OpContext<P>) => Promise<void>;
  /** May replace an authentication failure (the 422 inbound-no-approval probe). */
  onUnauthenticated?: (
    err: DomainError,
    raw: unknown,
    deps: { em: EntityManager; clock: Clock; tokens: TokenDirectory; callerToolsToken?: string },
  ) => Promise<DomainError>;
  /**
   * The operation writes: the runner runs its handler (after auth, limits, validation and the
   * Idempotency-Key check) in ONE transaction on `ctx.em`, flushes once and commits; the handler
   * calls neither `transactional` nor `flush`. A transaction that lost a deadlock or a
   * serialization conflict (40P01 / 40001) runs again from the start (no effect of it ran: effects
   * wait for the commit). Absent: no transaction is opened (reads; the publish path, whose store
   * groups its own commits).
   */
  writes?: boolean;
  handler: (input: I, ctx: OpContext<P>) => Promise<O>;
}

export function defineOperation<I, O, P extends Principal = Principal>(op: Operation<I, O, P>): Operation<I, O, P> {
  return op;
}

// Request-scoped data travels explicitly: every operation receives an OpContext.
import type { EntityManager } from '@mikro-orm/core';
import type { z } from 'zod';
import type { DomainError, Issue } from './errors.js';
import type { Ports } from './ports.js';
import type { Principal, TokenKind } from './principal.js';
import type { OperationBudget } from './rate-budgets.rules.js';
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
      /**
       * A token suspended by its circuit breaker may still make this call (its own view, GET
       * /api/v1/tokens/self, which reports the suspension); every other inbound call answers 429 circuit_open.
       */
      whileSuspended?: true;
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
  budget: OperationBudget | null;
  /**
   * How many hits of its budget one call counts (default 1), from the raw input: a monitoring
   * receiver counts one per alert it carries. All of them or none (a refused call uses up nothing).
   */
  budgetCost?: (raw: unknown) => number;
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

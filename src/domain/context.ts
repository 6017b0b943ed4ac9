// Request-scoped data travels explicitly: every operation receives an OpContext.
import type { Connection, EntityManager, Transaction } from '@mikro-orm/core';
import type { z } from 'zod';
import type { DomainError, Issue } from './errors.js';

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

export type Surface = 'rest' | 'legacy' | 'connect' | 'mcp' | 'cli';

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
   * (tokens/principal-cache.ts) and is not yet proven current: the row versions it was read at.
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
}

/** Operators on the machine (CLI); trusted. */
export interface SystemPrincipal {
  type: 'system';
}

export type Principal = InboundTokenPrincipal | AgentPrincipal | SystemPrincipal;

export interface DomainConfig {
  publicBaseUrl: string;
  allowedEmailDomains: readonly string[] | null;
}

export interface OpContext<P extends Principal = Principal> {
  principal: P;
  requestId: string;
  surface: Surface;
  channel: Channel;
  log: Logger;
  /** The call's own EntityManager (identity map). runOperation forks it on first use (LazyEmContext). */
  em: EntityManager;
  clock: Clock;
  config: DomainConfig;
}

/**
 * The context runOperation builds for a call: its `em` is forked from `root` on first read, so a
 * call that only runs statements on the shared connection (the publish group commit) never pays
 * for a fork. A class (the getter lives on the prototype): building one per call defines no
 * property at run time. Spreading it (`{ ...ctx, em }`, a caller handing a handler its own
 * EntityManager) copies the plain fields; name `em` in the spread to keep one.
 */
export class LazyEmContext<P extends Principal = Principal> implements OpContext<P> {
  #fork: EntityManager | undefined;
  readonly #root: EntityManager;
  constructor(
    public principal: P,
    public requestId: string,
    public surface: Surface,
    public channel: Channel,
    public log: Logger,
    public clock: Clock,
    public config: DomainConfig,
    root: EntityManager,
  ) {
    this.#root = root;
  }
  get em(): EntityManager {
    return (this.#fork ??= this.#root.fork());
  }
  /** The fork if one was made (never forks one). */
  get existingEm(): EntityManager | undefined {
    return this.#fork;
  }
  get root(): EntityManager {
    return this.#root;
  }
}

/** The EntityManager of `ctx` if one exists already (never forks one). */
export function existingEm(ctx: OpContext<any>): EntityManager | undefined {
  return ctx instanceof LazyEmContext ? ctx.existingEm : ctx.em;
}

/**
 * The connection `ctx.em` runs on and the transaction it is in, without forking an EntityManager
 * just to ask (a fresh fork is in no transaction).
 */
export function dbOf(ctx: OpContext<any>): { connection: Connection; transaction: Transaction | undefined } {
  const em = existingEm(ctx);
  if (em) return { connection: em.getConnection(), transaction: em.getTransactionContext() };
  return { connection: (ctx as LazyEmContext).root.getConnection(), transaction: undefined };
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
   * Which per-token windows a call counts against (app/run-operation.ts WINDOWS). `true`: the
   * principal's own windows (inbound: the 60/min publish budget; agent: 60/min and 5000/day).
   * `'requests'`: inbound tokens count against their request budget instead (600/min, a key of its
   * own), so read-back, resolve, supplement, event types and pings never use up the publish
   * budget; agent tokens count as for `true`. `false`: not counted; only for operator and
   * unauthenticated operations, and agent.session (the MCP surface counts each message itself).
   */
  rateLimited: boolean | 'requests';
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
  onUnauthenticated?: (err: DomainError, raw: unknown, deps: { em: EntityManager; clock: Clock; callerToolsToken?: string }) => Promise<DomainError>;
  handler: (input: I, ctx: OpContext<P>) => Promise<O>;
}

export function defineOperation<I, O, P extends Principal = Principal>(op: Operation<I, O, P>): Operation<I, O, P> {
  return op;
}

// The OpContext the runner builds for each call (domain/context.ts states the interface operations
// see); only the runner makes one and reaches past that interface.
import type { EntityManager } from '@mikro-orm/core';
import type { CallOptions, Channel, Clock, DomainConfig, Logger, OpContext, Operation, Surface } from '../domain/context.js';
import type { Ports } from '../domain/ports.js';
import type { Principal } from '../domain/principal.js';

/** How a context runs another operation: implemented by run-operation.ts. */
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

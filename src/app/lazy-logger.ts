// A child logger built on first use. At LOG_LEVEL=warn (the bench's level; at info Fastify writes
// two lines per request) a published event writes no line, yet making its two pino children
// (bindings serialized, redaction set up) cost about 2 % of the service's CPU per request.
// Fastify's per-request logger (childLoggerFactory in transports/http/server.ts) and each
// operation's logger (run-operation.ts) are this class: a call at a level the parent does not
// write returns without building the child. (A class: no closures made per request.)
import type { Logger } from '../domain/context.js';

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/** What a parent must offer: pino loggers, this class, and the domain Logger (child only). */
interface ParentLogger {
  child(bindings: object, options?: object): Logger | Child;
  isLevelEnabled?(level: string): boolean;
  level?: string;
}

/** A built child: the domain Logger's methods, and pino's where the parent is a pino logger. */
type Child = Omit<Logger, 'child'> &
  Partial<Record<'fatal' | 'trace', (obj: object, msg?: string) => void>> & {
    child(bindings: object, options?: object): Logger;
    level?: string;
    isLevelEnabled?(level: string): boolean;
  };

export class LazyChildLogger implements Logger {
  private made: Child | undefined;
  constructor(
    private readonly parent: ParentLogger,
    private readonly bindings: object,
    /** pino child options (Fastify passes a route's own level or serializers here). */
    private readonly options?: { level?: string },
  ) {}

  private get log(): Child {
    return (this.made ??= this.parent.child(this.bindings, this.options) as Child);
  }

  /** Whether a line at `level` would be written; answered from the parent until the child exists. */
  isLevelEnabled(level: string): boolean {
    if (this.made === undefined && this.options?.level === undefined) return this.parent.isLevelEnabled?.(level) ?? true;
    return this.log.isLevelEnabled?.(level) ?? true;
  }

  get level(): string {
    return this.made?.level ?? this.options?.level ?? this.parent.level ?? 'info';
  }

  set level(level: string) {
    this.log.level = level;
  }

  private write(level: Level, obj: object, msg?: string): void {
    if (!this.isLevelEnabled(level)) return;
    const log = this.log;
    const fn = log[level];
    if (fn) fn.call(log, obj, msg);
    else if (level === 'fatal') log.error(obj, msg); // a parent with only the domain Logger's levels
  }

  fatal(obj: object, msg?: string): void {
    this.write('fatal', obj, msg);
  }
  error(obj: object, msg?: string): void {
    this.write('error', obj, msg);
  }
  warn(obj: object, msg?: string): void {
    this.write('warn', obj, msg);
  }
  info(obj: object, msg?: string): void {
    this.write('info', obj, msg);
  }
  debug(obj: object, msg?: string): void {
    this.write('debug', obj, msg);
  }
  trace(obj: object, msg?: string): void {
    this.write('trace', obj, msg);
  }
  silent(): void {}

  child(bindings: object, options?: object): Logger {
    return this.log.child(bindings, options);
  }
}

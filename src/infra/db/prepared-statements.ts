// PostgreSQL driver whose hot statements (SQL starting with PREPARED, see domain/sql-hints.ts) run
// as protocol-level named prepared statements: Parse once per pooled connection, then only
// Bind/Execute, so PostgreSQL stops re-parsing and re-planning them. Everything else, and anything
// inside a transaction, goes through MikroORM unchanged; same SQL, same single round trip and
// autocommit. Behind a transaction-mode PgBouncer this needs max_prepared_statements (PgBouncer >= 1.21).
import { createHash } from 'node:crypto';
import type { EntityManagerType, Configuration, Constructor, LogContext, LoggingOptions, Transaction } from '@mikro-orm/core';
import {
  AbstractSqlDriver,
  EntityManager as PostgreSqlEntityManager,
  MikroORM as PostgreSqlMikroORM,
  PostgreSqlConnection,
  PostgreSqlPlatform,
} from '@mikro-orm/postgresql';
import { PREPARED, PREPARED_IF_ROOM } from '../../domain/sql-hints.js';
import type { Tracer } from '../tracing/tracing.js';

interface Statement {
  name: string;
  text: string;
  placeholders: number;
}

/** `?` -> `$1..$n` outside string literals; `?::type` casts keep working. */
export function toNumberedPlaceholders(sql: string): { text: string; placeholders: number } {
  let out = '';
  let n = 0;
  let inQuote = false;
  for (let i = 0; i < sql.length; i++) {
    const ch = sql[i]!;
    if (ch === "'") inQuote = !inQuote;
    if (ch === '?' && !inQuote) {
      if (sql[i + 1] === '?' || sql[i + 1] === '|' || sql[i + 1] === '&') throw new Error('prepared statements take plain ? placeholders only');
      out += `$${++n}`;
    } else out += ch;
  }
  return { text: out, placeholders: n };
}

const MAX_STATEMENTS = 200; // distinct SQL texts; a bound on per-connection server memory

/**
 * Takes the statement text at `execute`, before MikroORM inlines the values
 * (AbstractSqlConnection.execute formats every query before it reaches the pool). Installed through
 * the connection class a driver passes to AbstractSqlDriver (PreparedStatementDriver below); only
 * public or protected API is used (`getNativeClient()`, `execute`, `executeQuery`).
 */
export class PreparedStatementConnection extends PostgreSqlConnection {
  private readonly statements = new Map<string, Statement>();

  override async execute<T>(
    query: unknown,
    params: readonly unknown[] | Record<string, unknown> = [],
    method: 'all' | 'get' | 'run' = 'all',
    ctx?: Transaction,
    loggerContext?: LoggingOptions,
  ): Promise<T> {
    const marked = typeof query === 'string' && (query.startsWith(PREPARED) ? 'always' : query.startsWith(PREPARED_IF_ROOM) ? 'if-room' : undefined);
    const stmt = ctx === undefined && marked && Array.isArray(params) ? this.statement(query as string, params.length, marked === 'if-room') : undefined;
    const abortable = loggerContext as { signal?: unknown; inflightQueryAbortStrategy?: unknown } | undefined;
    if (!stmt || abortable?.signal != null || abortable?.inflightQueryAbortStrategy != null) {
      return super.execute(query as string, params, method, ctx, loggerContext) as Promise<T>;
    }
    const pool = await this.getNativeClient();
    return this.executeQuery(
      query as string,
      async () => {
        const res = await pool.query({ name: stmt.name, text: stmt.text, values: params as unknown[] });
        return this.transformRawResult({ rows: res.rows, numAffectedRows: res.rowCount ?? undefined }, method);
      },
      { query: query as string, params: params as unknown[] },
    ) as Promise<T>;
  }

  private statement(sql: string, paramCount: number, ifRoom: boolean): Statement | undefined {
    let stmt = this.statements.get(sql);
    if (!stmt) {
      if (this.statements.size >= (ifRoom ? MAX_STATEMENTS / 2 : MAX_STATEMENTS)) return undefined;
      const { text, placeholders } = toNumberedPlaceholders(sql);
      stmt = { name: `fx_${createHash('sha1').update(sql).digest('hex').slice(0, 16)}`, text, placeholders };
      this.statements.set(sql, stmt);
    }
    return stmt.placeholders === paramCount ? stmt : undefined;
  }
}

/**
 * PreparedStatementConnection with a client span per statement inside a trace (tracing on): every
 * statement of the ORM passes executeQuery, prepared or not, in a transaction or not. The SQL text
 * has placeholders only, never values.
 */
function tracedConnection(tracer: Tracer): typeof PreparedStatementConnection {
  return class TracedStatementConnection extends PreparedStatementConnection {
    protected override executeQuery<T>(query: string, cb: () => Promise<T>, context?: LogContext): Promise<T> {
      const operation = sqlOperation(query);
      return tracer.inChildSpan(operation, 'client', { 'db.system.name': 'postgresql', 'db.operation.name': operation, 'db.query.text': query }, () =>
        super.executeQuery(query, cb, context),
      );
    }
  };
}

/** The statement's first keyword (SELECT, INSERT...), after leading comments: the span name. */
function sqlOperation(sql: string): string {
  const m = /^\s*(?:\/\*[\s\S]*?\*\/\s*)*([A-Za-z]+)/.exec(sql);
  return m ? m[1]!.toUpperCase() : 'SQL';
}

/**
 * PostgreSqlDriver with PreparedStatementConnection as its connection class (and read replicas'):
 * the platform, dependencies, EntityManager and ORM class are PostgreSqlDriver's.
 */
export class PreparedStatementDriver extends AbstractSqlDriver<PreparedStatementConnection, PostgreSqlPlatform> {
  constructor(config: Configuration, connection: typeof PreparedStatementConnection = PreparedStatementConnection) {
    super(config, new PostgreSqlPlatform(), connection, ['kysely', 'pg']);
  }

  override createEntityManager(useContext?: boolean): this[typeof EntityManagerType] {
    const EntityManagerClass = this.config.get('entityManager', PostgreSqlEntityManager) as typeof PostgreSqlEntityManager;
    return new EntityManagerClass(this.config, this as never, this.metadata, useContext) as this[typeof EntityManagerType];
  }

  override getORMClass(): Constructor<PostgreSqlMikroORM> {
    return PostgreSqlMikroORM;
  }
}

/** The driver class for MikroORM's `driver` option: with `tracer` (deps.tracer), its statements are traced. */
export function preparedStatementDriver(tracer: Tracer | null): typeof PreparedStatementDriver {
  if (tracer === null) return PreparedStatementDriver;
  const connection = tracedConnection(tracer);
  return class TracedStatementDriver extends PreparedStatementDriver {
    constructor(config: Configuration) {
      super(config, connection);
    }
  };
}

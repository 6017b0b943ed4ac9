// What a database error says about itself: its SQLSTATE, wherever the driver put it (pg sets
// `code`; MikroORM's wrapped errors carry `sqlState` or the driver error as `cause`), and the few
// classes the service decides on. The one copy: the group commit's retry (infra/events) and the
// runner's error map (app/run-operation.ts toDomainError) both read errors through it.

/** SQLSTATE of an error (five characters, at least one digit), or undefined. */
export function sqlState(err: unknown): string | undefined {
  const e = err as { code?: unknown; sqlState?: unknown; cause?: { code?: unknown } } | null;
  for (const c of [e?.sqlState, e?.code, e?.cause?.code]) {
    if (typeof c === 'string' && /^[0-9A-Z]{5}$/.test(c) && /\d/.test(c)) return c;
  }
  return undefined;
}

/**
 * Lost a deadlock (40P01) or a serialization conflict (40001): PostgreSQL rolled the statement or
 * transaction back, nothing of it was written, and running it again succeeds.
 */
export function isTransientConflict(err: unknown): boolean {
  const code = sqlState(err);
  return code === '40P01' || code === '40001';
}

/** A lock not granted within lock_timeout (55P03): nothing of the statement ran; a later try may get it. */
export function isLockTimeout(err: unknown): boolean {
  return sqlState(err) === '55P03';
}

/**
 * An error PostgreSQL raised for the statement itself (a SQLSTATE outside the connection,
 * resource and system classes 08, 53, 57, 58): another statement on the same connection may succeed.
 */
export function isStatementError(err: unknown): boolean {
  const code = sqlState(err);
  return code !== undefined && !['08', '53', '57', '58'].includes(code.slice(0, 2));
}

/** SQLSTATEs of a lost or refused database connection (admin shutdown, crash, cannot connect). */
const CONNECTION_STATES: ReadonlySet<string> = new Set(['57P01', '57P02', '57P03', '08000', '08001', '08003', '08006']);
/** Node's socket error codes of the same. */
const SOCKET_CODES: ReadonlySet<string> = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE']);

/** The database could not be reached or dropped the connection (by SQLSTATE or socket error code). */
export function isConnectionFailure(err: unknown): boolean {
  const state = sqlState(err);
  if (state !== undefined && CONNECTION_STATES.has(state)) return true;
  const e = err as { code?: unknown; cause?: { code?: unknown } } | null;
  const code = e?.code ?? e?.cause?.code;
  return typeof code === 'string' && SOCKET_CODES.has(code);
}

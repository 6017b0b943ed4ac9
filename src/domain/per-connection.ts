// One instance of something per database connection pool (one service), made on first use: the
// group commit, the batched token lookups, the principal cache and the last-use recorder are
// per-service state that must not leak between services in one process (tests run several).
import type { Connection } from '@mikro-orm/core';

export function perConnection<T>(make: (conn: Connection) => T): (conn: Connection) => T {
  const made = new WeakMap<Connection, T>();
  return (conn) => {
    let t = made.get(conn);
    if (t === undefined) made.set(conn, (t = make(conn)));
    return t;
  };
}

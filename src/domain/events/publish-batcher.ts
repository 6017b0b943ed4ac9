// Group commit for single publishes (personal tokens): concurrent events.publish calls queue their
// prepared delivery and wait; at the next turn of the event loop the queue is written with ONE
// multi-row upsert statement (writeDeliveries, the bulk path's statement; one implicit
// transaction), then every caller gets its own row back (inserted / deduped, fire_count, degraded,
// pushed). A caller is answered only after its statement committed, so a 2xx still means committed.
//
// Per-event semantics stay those of a one-row statement because rows that would interact are never
// written together: one row per token (dedup on (token, event_id) and the token's daily counter)
// and per recipient user (the user's daily inbox counter) in one statement, and one UTC day per
// statement. Rows held back go in the next statement, in arrival order. Rows are sorted by token
// so concurrent statements take their row locks in the same order.
//
// Failures: a connection-level error fails every caller of that statement with the same error the
// one-row path gives (503 + Retry-After). Any other error of a multi-row statement (e.g. a
// deadlock or one row's bad data) is retried row by row, so each caller gets its own outcome.
import type { Connection } from '@mikro-orm/core';
import { perConnection } from '../per-connection.js';
import { writeDeliveries, type DeliveryRow, type NewDelivery, type RowContext } from './events.repository.js';

/** Rows per statement (the statement is padded to a power of two rows: few prepared statement texts). */
const MAX_ROWS = 64;
/**
 * Statements in flight per service. Rows that arrive while a statement runs queue and go in the
 * next one: a statement costs PostgreSQL about as much as 4 to 6 of its rows (executor start-up of
 * the CTEs, commit), so fuller statements mean less work per event. A second statement starts only
 * when a full one is waiting, or when the running one has taken longer than STALL_MS (waiting for
 * a row lock, say): one slow statement never holds up every publish of the process.
 */
const MAX_IN_FLIGHT = 2;
const STALL_MS = 25;

interface Pending {
  item: NewDelivery;
  row: RowContext;
  day: string;
  /** undefined: the row was not written (its caller's principal was out of date). */
  resolve: (row: DeliveryRow | undefined) => void;
  reject: (err: unknown) => void;
}

class PublishBatcher {
  private queue: Pending[] = [];
  private inFlight = 0;
  private scheduled = false;
  /** Start times (performance.now()) of the statements in flight. */
  private readonly starts: number[] = [];
  /** Re-checks the queue once the one running statement has taken STALL_MS. */
  private stallTimer: NodeJS.Timeout | undefined;

  constructor(private readonly conn: Connection) {}

  add(p: Pending): void {
    this.queue.push(p);
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled || this.queue.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      while (this.queue.length > 0 && this.mayStart()) void this.flush(this.take());
      // Rows left waiting behind one running statement: look again when it reaches STALL_MS.
      if (this.queue.length > 0) this.armStallTimer();
    });
  }

  private mayStart(): boolean {
    if (this.inFlight === 0) return true;
    if (this.inFlight >= MAX_IN_FLIGHT) return false;
    return this.queue.length >= MAX_ROWS || performance.now() - Math.min(...this.starts) >= STALL_MS;
  }

  /** With one statement running, wakes the queue when that statement reaches STALL_MS. */
  private armStallTimer(): void {
    clearTimeout(this.stallTimer);
    if (this.inFlight !== 1) return;
    const dueIn = STALL_MS - (performance.now() - Math.min(...this.starts));
    // A timer may fire a fraction of a millisecond early: the check then re-arms it.
    this.stallTimer = setTimeout(() => this.schedule(), Math.max(1, Math.ceil(dueIn))).unref();
  }

  /** The next statement's rows: queue order, at most one per token and per user, one day. */
  private take(): Pending[] {
    const batch: Pending[] = [];
    const rest: Pending[] = [];
    const tokens = new Set<string>();
    const users = new Set<string>();
    const day = this.queue[0]!.day;
    for (const p of this.queue) {
      if (batch.length < MAX_ROWS && p.day === day && !tokens.has(p.item.tokenId) && !users.has(p.item.recipientUserId)) {
        batch.push(p);
        tokens.add(p.item.tokenId);
        users.add(p.item.recipientUserId);
      } else rest.push(p);
    }
    this.queue = rest;
    return batch.sort((a, b) => (a.item.tokenId < b.item.tokenId ? -1 : a.item.tokenId > b.item.tokenId ? 1 : 0));
  }

  private async flush(batch: Pending[]): Promise<void> {
    const started = performance.now();
    this.inFlight++;
    this.starts.push(started);
    try {
      const rows = await writeDeliveries(this.conn, undefined, batch, { day: batch[0]!.day });
      batch.forEach((p, i) => p.resolve(rows[i]));
    } catch (err) {
      if (batch.length === 1 || !isStatementError(err)) {
        for (const p of batch) p.reject(err);
      } else {
        await Promise.all(
          batch.map((p) =>
            writeDeliveries(this.conn, undefined, [p], { day: p.day }).then(
              ([row]) => p.resolve(row),
              (e: unknown) => p.reject(e),
            ),
          ),
        );
      }
    } finally {
      this.inFlight--;
      this.starts.splice(this.starts.indexOf(started), 1);
      this.schedule();
    }
  }
}

/**
 * An error PostgreSQL raised for the statement (a SQLSTATE outside the connection / resource
 * classes): retrying the rows one by one can give each its own outcome.
 */
function isStatementError(err: unknown): boolean {
  const e = err as { code?: unknown; sqlState?: unknown; cause?: { code?: unknown } } | null;
  const code = [e?.sqlState, e?.code, e?.cause?.code].find((c): c is string => typeof c === 'string' && /^[0-9A-Z]{5}$/.test(c) && /\d/.test(c));
  return code !== undefined && !['08', '53', '57', '58'].includes(code.slice(0, 2));
}

const batcherOf = perConnection((conn) => new PublishBatcher(conn));

/**
 * Writes one personal-token delivery (nudged, no hold) through the group commit of its database
 * connection; resolves with its row once the statement committed, or with undefined when
 * `row.verify` was out of date and nothing was written.
 */
export function publishGrouped(conn: Connection, item: NewDelivery, row: RowContext, day: string): Promise<DeliveryRow | undefined> {
  const batcher = batcherOf(conn);
  return new Promise<DeliveryRow | undefined>((resolve, reject) => batcher.add({ item, row, day, resolve, reject }));
}

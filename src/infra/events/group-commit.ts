// Group commit of single publishes (personal tokens): concurrent events.publish calls are written by
// one multi-row statement at the next turn of the event loop, and each caller gets its own row once
// that statement committed, so a 2xx still means committed. Which rows never share a statement, the
// repeat statement and the failure rules: docs/architecture.md, "The publish path".
import type { Connection } from '@mikro-orm/core';
import { dedupKey, writeDeliveries, writeRepeats, type RowContext } from '../../domain/events/events.repository.js';
import type { DeliveryRow, NewDelivery } from '../../domain/events/event-store.js';
import { StalePrincipalError } from '../../domain/tokens/token-directory.js';
import { isStatementError, isTransientConflict } from '../db/sql-state.js';

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
/** (token, event_id) pairs remembered as written, for the repeat statement (about 200 bytes each). */
const KNOWN_MAX = 20_000;

interface Pending {
  item: NewDelivery;
  row: RowContext;
  day: string;
  /** Expected to be a repeat (its pair was written lately): goes in a repeat statement. */
  repeat: boolean;
  /** Its (token, event_id) pair as the known-pairs key. */
  key: string;
  resolve: (row: DeliveryRow) => void;
  reject: (err: unknown) => void;
}

export interface GroupCommitStats {
  /** Statements run, by kind. */
  full: number;
  repeat: number;
  /** Rows a repeat statement handed back to the full one. */
  handedBack: number;
}

export class GroupCommit {
  private queue: Pending[] = [];
  private inFlight = 0;
  private scheduled = false;
  /** Start times (performance.now()) of the statements in flight. */
  private readonly starts: number[] = [];
  /** Re-checks the queue once the one running statement has taken STALL_MS. */
  private stallTimer: NodeJS.Timeout | undefined;
  /**
   * Pairs written lately, in two generations of KNOWN_MAX / 2: when the newer one is full, the
   * older is dropped whole (dropping the oldest entry one at a time from one Set cost ~10 us a
   * write once it was full: V8 skips the deleted entries at its start on every iteration).
   */
  private known = new Set<string>();
  private knownBefore = new Set<string>();
  private readonly counts: GroupCommitStats = { full: 0, repeat: 0, handedBack: 0 };

  constructor(private readonly conn: Connection) {}

  /**
   * Writes one personal-token delivery (nudged, no hold) with the next statement; resolves with its
   * row once that statement committed, or rejects with StalePrincipalError when `row.verify` was out
   * of date and nothing was written.
   */
  add(item: NewDelivery, row: RowContext, day: string): Promise<DeliveryRow> {
    return new Promise<DeliveryRow>((resolve, reject) => {
      const key = dedupKey(item.tokenId, item.eventId);
      this.queue.push({ item, row, day, repeat: this.known.has(key) || this.knownBefore.has(key), key, resolve, reject });
      this.schedule();
    });
  }

  /** Statements run so far, by kind, and rows handed back from a repeat statement to the full one. */
  stats(): Readonly<GroupCommitStats> {
    return { ...this.counts };
  }

  private schedule(): void {
    if (this.scheduled || this.queue.length === 0) return;
    this.scheduled = true;
    // A repeat statement starting from idle waits one more turn of the event loop for rows: it is
    // cheap for PostgreSQL, and fuller ones save the service more than the turn costs (bench A/B:
    // repeats faster in 6 of 8 pairs, geometric mean +7 %; the same wait before full statements
    // made new events 9-20 % slower in 2 of 2 pairs, so they start at the next turn).
    const wait = this.inFlight === 0 && this.queue[0]!.repeat;
    setImmediate(wait ? () => setImmediate(this.pump) : this.pump);
  }

  private readonly pump = (): void => {
    this.scheduled = false;
    while (this.queue.length > 0 && this.mayStart()) void this.flush(this.take());
    // Rows left waiting behind one running statement: look again when it reaches STALL_MS.
    if (this.queue.length > 0) this.armStallTimer();
  };

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

  /** The next statement's rows: queue order, one kind (repeat or not), at most one per token and per user, one day. */
  private take(): Pending[] {
    const batch: Pending[] = [];
    const rest: Pending[] = [];
    const tokens = new Set<string>();
    const users = new Set<string>();
    const { day, repeat } = this.queue[0]!;
    for (const p of this.queue) {
      if (batch.length < MAX_ROWS && p.repeat === repeat && p.day === day && !tokens.has(p.item.tokenId) && !users.has(p.item.recipientUserId)) {
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
      const repeat = batch[0]!.repeat;
      this.counts[repeat ? 'repeat' : 'full']++;
      const rows = await retryingConflicts(() =>
        repeat ? writeRepeats(this.conn, batch) : writeDeliveries(this.conn, undefined, batch, { day: batch[0]!.day }),
      );
      const again: Pending[] = [];
      batch.forEach((p, i) => {
        const row = rows[i];
        if (row || !repeat) this.settle(p, row);
        else {
          p.repeat = false;
          again.push(p);
        }
      });
      // Not written by the repeat statement: next, with the full statement.
      if (again.length > 0) {
        this.counts.handedBack += again.length;
        this.queue.unshift(...again);
      }
    } catch (err) {
      if (batch.length === 1 || !isStatementError(err)) {
        for (const p of batch) p.reject(err);
      } else {
        await Promise.all(
          batch.map((p) =>
            retryingConflicts(() => writeDeliveries(this.conn, undefined, [p], { day: p.day })).then(
              ([row]) => this.settle(p, row),
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

  /** A written row answers its caller; a row the full statement did not write had a stale principal. */
  private settle(p: Pending, row: DeliveryRow | undefined): void {
    if (!row) {
      p.reject(new StalePrincipalError());
      return;
    }
    this.remember(p.key);
    p.resolve(row);
  }

  private remember(key: string): void {
    if (this.known.has(key)) return;
    if (this.known.size >= KNOWN_MAX / 2) {
      this.knownBefore = this.known;
      this.known = new Set();
    }
    this.known.add(key);
  }
}

/** How often a statement that lost a deadlock (or a serialization conflict) is run again. */
const CONFLICT_ATTEMPTS = 4;

/**
 * Runs a publish statement again when PostgreSQL aborted it as a deadlock victim (40P01) or for a
 * serialization conflict (40001): nothing of it was written, and the other side has its locks now.
 * Statements of two processes can lock the same token's and user's daily counter rows in different
 * orders (the order the CTEs run in is the plan's): seen under three nodes behind a balancer.
 * A short random pause lets the winner commit first.
 */
export async function retryingConflicts<T>(write: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (err) {
      if (attempt >= CONFLICT_ATTEMPTS || !isTransientConflict(err)) throw err;
      await new Promise((r) => setTimeout(r, 2 + Math.random() * 10 * attempt));
    }
  }
}

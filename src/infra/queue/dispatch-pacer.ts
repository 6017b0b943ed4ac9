// Nudge dispatch yields to request handling. Event acceptance is the service's promise (a 2xx is a
// committed delivery); a nudge is a notice about it that may leave a little later. On a saturated
// process every nudge sent competes for the same CPU as the requests (the send, its PostgreSQL
// claim and settle, the receiver's answer), so while the process is busy serving requests the
// dispatcher trickles (one loop, small batches, a pause between them) instead of racing the
// requests, and catches up at full speed as soon as the load drops. A busy spell defers nudges
// for at most `maxDeferMs`: after that the dispatcher runs at full speed even under load, so a
// sustained overload delays nudges by a bounded time instead of starving them.
//
// "Busy" is the number of operations in flight in this process (every surface goes through one
// runner, src/app/run-operation.ts), not the event loop's utilization: the dispatcher's own work
// must not count, or a backlog drained with no requests around would throttle itself.

/** Nudges per claim while yielding (one loop). */
export const YIELD_BATCH = 20;
/** Pause after each claim while yielding: at most YIELD_BATCH / YIELD_PAUSE_MS = 200 nudges/s per process. */
export const YIELD_PAUSE_MS = 100;
/** A busy spell ends after this long below the threshold. */
export const QUIET_MS = 1000;

export interface DispatchPacerOptions {
  /** Operations in flight in this process now. */
  inFlight: () => number;
  /** In-flight operations from which the process counts as busy; 0 = never yield. */
  busyAt: number;
  /** Longest busy spell the dispatcher yields for; then full speed until the spell ends. */
  maxDeferMs: number;
  /** Milliseconds of the service clock. */
  nowMs: () => number;
}

export type DispatchMode = 'full' | 'yield';

export class DispatchPacer {
  private busySince: number | undefined;
  private lastBusy = 0;

  constructor(private readonly o: DispatchPacerOptions) {}

  /** How the next claim runs. */
  mode(): DispatchMode {
    const now = this.o.nowMs();
    if (this.o.busyAt <= 0 || this.o.inFlight() < this.o.busyAt) {
      if (this.busySince !== undefined && now - this.lastBusy >= QUIET_MS) this.busySince = undefined;
      return 'full';
    }
    this.lastBusy = now;
    this.busySince ??= now;
    return now - this.busySince >= this.o.maxDeferMs ? 'full' : 'yield';
  }
}

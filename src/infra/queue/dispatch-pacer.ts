// Nudge dispatch yields to request handling (README "Nudges": requests come first): while the
// process is busy the dispatcher trickles, and it runs at full speed once the load drops or after
// `maxDeferMs` of one busy spell, so overload delays nudges by a bounded time instead of starving
// them. "Busy" is operations in flight in this process (src/app/run-operation.ts), not event-loop
// utilization: the dispatcher's own work must not throttle a backlog it drains with no requests.

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

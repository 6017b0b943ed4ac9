// Readiness: can this process serve requests now? Liveness (`/api/v1/health`) makes no I/O; readiness
// checks the dependencies a request needs (PostgreSQL reachable and its migrations current, Redis when
// configured) and turns false for good once the process starts draining (SIGTERM). The REST probe
// `GET /api/v1/ready` and grpc.health.v1 both read it, so a load balancer of either kind sees the same.

export interface DependencyProbe {
  /** Named in the 503 answer: `postgres`, `migrations`, `redis`, `partitions`. */
  name: string;
  check(): Promise<void>;
}

export type CheckState = 'ok' | 'failing';

export interface ReadinessReport {
  ready: boolean;
  draining: boolean;
  /** Per dependency; empty while draining (nothing is checked then). */
  checks: Record<string, CheckState>;
  /** Names of the failing dependencies (`draining` when the process is stopping). */
  failing: string[];
  /** Why each failing dependency fails (its check's error message), for the 503's detail. */
  reasons: Record<string, string>;
}

/** One check per dependency at most this long: a hung dependency is a failing one. */
const PROBE_TIMEOUT_MS = 2_000;
/** Probes arriving within this long share one round of checks (a probe storm is one query). */
const CACHE_MS = 1_000;

export class Readiness {
  private draining = false;
  private cached: { at: number; report: Promise<ReadinessReport> } | undefined;
  private readonly listeners = new Set<() => void>();

  /** `nowMs`: the service clock (tests move a ManualClock past the cache instead of waiting). */
  constructor(
    private readonly probes: readonly DependencyProbe[],
    private readonly nowMs: () => number = Date.now,
  ) {}

  get isDraining(): boolean {
    return this.draining;
  }

  /** The process stops taking work: readiness is false from now on; watchers are told at once. */
  drain(): void {
    if (this.draining) return;
    this.draining = true;
    this.cached = undefined;
    for (const l of [...this.listeners]) l();
  }

  /** Called when draining starts (grpc.health Watch streams answer NOT_SERVING and end). */
  onDrain(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  check(): Promise<ReadinessReport> {
    if (this.draining) return Promise.resolve({ ready: false, draining: true, checks: {}, failing: ['draining'], reasons: {} });
    const now = this.nowMs();
    if (this.cached && now - this.cached.at < CACHE_MS) return this.cached.report;
    const report = this.runChecks();
    this.cached = { at: now, report };
    return report;
  }

  private async runChecks(): Promise<ReadinessReport> {
    const results = await Promise.all(
      this.probes.map((p) =>
        withTimeout(p.check()).then(
          () => ({ state: 'ok' as const, reason: '' }),
          (err: unknown) => ({ state: 'failing' as const, reason: err instanceof Error ? err.message : String(err) }),
        ),
      ),
    );
    const checks: Record<string, CheckState> = {};
    const reasons: Record<string, string> = {};
    this.probes.forEach((p, i) => {
      checks[p.name] = results[i]!.state;
      if (results[i]!.state === 'failing') reasons[p.name] = results[i]!.reason;
    });
    const failing = this.probes.filter((_, i) => results[i]!.state === 'failing').map((p) => p.name);
    // A drain that began while the checks ran wins.
    if (this.draining) return { ready: false, draining: true, checks: {}, failing: ['draining'], reasons: {} };
    return { ready: failing.length === 0, draining: false, checks, failing, reasons };
  }
}

function withTimeout(p: Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((_, reject) => {
    timer = setTimeout(() => reject(new Error('probe timed out')), PROBE_TIMEOUT_MS);
    timer.unref();
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

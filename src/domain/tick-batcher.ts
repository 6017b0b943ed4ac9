// Loads that arrive in the same turn of the event loop share one call (the DataLoader pattern,
// without a cache: every request reads fresh rows). Used on hot read paths where concurrent
// requests would otherwise each send a one-row query: one statement for N keys costs PostgreSQL
// one round trip, one wakeup and one execution instead of N.
export class TickBatcher<K, V> {
  private pending: Array<{ key: K; resolve: (v: V | undefined) => void; reject: (err: unknown) => void }> = [];
  private scheduled = false;

  constructor(
    private readonly load: (keys: K[]) => Promise<Map<K, V>>,
    /** Distinct keys per call. */
    private readonly maxBatch = 128,
  ) {}

  get(key: K): Promise<V | undefined> {
    return new Promise((resolve, reject) => {
      this.pending.push({ key, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** The turn's distinct keys, in calls of at most maxBatch keys; each caller gets its key's value. */
  private flush(): void {
    this.scheduled = false;
    const byKey = new Map<K, Array<{ resolve: (v: V | undefined) => void; reject: (err: unknown) => void }>>();
    for (const p of this.pending) {
      const waiting = byKey.get(p.key);
      if (waiting) waiting.push(p);
      else byKey.set(p.key, [p]);
    }
    this.pending = [];
    const keys = [...byKey.keys()];
    for (let i = 0; i < keys.length; i += this.maxBatch) {
      const batch = keys.slice(i, i + this.maxBatch);
      this.load(batch).then(
        (found) => batch.forEach((k) => byKey.get(k)!.forEach((p) => p.resolve(found.get(k)))),
        (err: unknown) => batch.forEach((k) => byKey.get(k)!.forEach((p) => p.reject(err))),
      );
    }
  }
}

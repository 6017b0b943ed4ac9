// Loads that arrive in the same turn of the event loop share one call (the DataLoader pattern,
// without a cache: every request reads fresh rows). Used on hot read paths where concurrent
// requests would otherwise each send a one-row query: one statement for N keys costs PostgreSQL
// one round trip, one wakeup and one execution instead of N.
export class TickBatcher<K, V> {
  private pending: Array<{ key: K; resolve: (v: V | undefined) => void; reject: (err: unknown) => void }> = [];
  private scheduled = false;

  constructor(
    private readonly load: (keys: K[]) => Promise<Map<K, V>>,
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

  private flush(): void {
    this.scheduled = false;
    const all = this.pending;
    this.pending = [];
    for (let i = 0; i < all.length; i += this.maxBatch) {
      const batch = all.slice(i, i + this.maxBatch);
      this.load([...new Set(batch.map((p) => p.key))]).then(
        (found) => batch.forEach((p) => p.resolve(found.get(p.key))),
        (err: unknown) => batch.forEach((p) => p.reject(err)),
      );
    }
  }
}

// Loads that arrive in the same turn of the event loop share one call, without a cache across
// turns: every request reads fresh rows. Used on hot paths where concurrent requests would
// otherwise each send a one-row query or one Redis script (token lookups, rate-limit hits): one
// call for N keys costs one round trip, one wakeup and one execution instead of N.
//
// The mechanics are DataLoader's (batching, keys asked twice in a turn asked once, results matched
// to keys, a failed call failing only its own callers), with two settings of ours: the batch is
// dispatched by setImmediate, i.e. after every request the event loop's poll phase delivered in
// this turn (DataLoader's default, process.nextTick after the current promise jobs, would close
// the batch after the first request's callback), and its cache lives for one batch only (cleared
// when the batch is taken), so nothing is served from memory.
import DataLoader from 'dataloader';

export class TickBatcher<K, V> {
  private readonly loader: DataLoader<K, V | undefined>;

  constructor(
    load: (keys: K[]) => Promise<Map<K, V>>,
    /** Distinct keys per call. */
    maxBatch = 128,
  ) {
    this.loader = new DataLoader<K, V | undefined>(
      async (keys) => {
        // This turn's keys are taken: a later get() of the same key reads again.
        this.loader.clearAll();
        const found = await load(keys as K[]);
        return keys.map((k) => found.get(k));
      },
      { maxBatchSize: maxBatch, batchScheduleFn: (dispatch) => setImmediate(dispatch) },
    );
  }

  /** The value of `key` (undefined when the load found none), from the call of this turn. */
  get(key: K): Promise<V | undefined> {
    return this.loader.load(key);
  }
}

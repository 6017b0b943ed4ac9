// Loads that arrive in the same turn of the event loop share one call, without a cache across
// turns: every request reads fresh rows. Used on hot paths where concurrent requests would
// otherwise each send a one-row query or one Redis script (token lookups, rate-limit hits): one
// call for N keys costs one round trip, one wakeup and one execution instead of N.
//
// The mechanics are DataLoader's (batching, results matched to keys, a failed call failing only
// its own callers), with settings of ours: the batch is dispatched by setImmediate, i.e. after
// every request the event loop's poll phase delivered in this turn (DataLoader's default,
// process.nextTick after the current promise jobs, would close the batch after the first
// request's callback), and DataLoader's cache is off: a key asked twice in a batch is asked once
// because the batch's keys are de-duplicated here. Its cache did the same job for ~8 % more of the
// service's CPU per MCP whoami call (`npm run bench:vs`, measured against this form); the cost showed
// in the service as a whole (mostly more GC), not in DataLoader's own functions.
import DataLoader from 'dataloader';

export class TickBatcher<K, V> {
  private readonly loader: DataLoader<K, V | undefined>;

  constructor(
    load: (keys: K[]) => Promise<Map<K, V>>,
    /** Requests per call (a key asked by several counts once in the call's keys). */
    maxBatch = 128,
  ) {
    this.loader = new DataLoader<K, V | undefined>(
      async (keys) => {
        const found = await load(keys.length > 1 ? [...new Set(keys)] : (keys as K[]));
        return keys.map((k) => found.get(k));
      },
      { maxBatchSize: maxBatch, batchScheduleFn: (dispatch) => setImmediate(dispatch), cache: false },
    );
  }

  /** The value of `key` (undefined when the load found none), from the call of this turn. */
  get(key: K): Promise<V | undefined> {
    return this.loader.load(key);
  }
}

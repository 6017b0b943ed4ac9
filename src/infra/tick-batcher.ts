// Loads that arrive in the same turn of the event loop share one call (token lookups, rate-limit
// hits): one round trip, one wakeup and one execution for N keys instead of N, and no cache across
// turns, so every request reads fresh rows. The batching is DataLoader's, with the settings below.
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
      // setImmediate closes the batch after every request the poll phase delivered in this turn
      // (DataLoader's default, process.nextTick, closes it after the first request's callback).
      // DataLoader's cache is off: the keys are de-duplicated above, and its cache did the same job
      // for ~8 % more service CPU per MCP whoami call (`npm run bench:vs`, mostly more GC).
      { maxBatchSize: maxBatch, batchScheduleFn: (dispatch) => setImmediate(dispatch), cache: false },
    );
  }

  /** The value of `key` (undefined when the load found none), from the call of this turn. */
  get(key: K): Promise<V | undefined> {
    return this.loader.load(key);
  }
}

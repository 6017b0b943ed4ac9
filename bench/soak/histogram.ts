// Latency histogram for the soak: log buckets of 2 % width from 10 µs, so ten minutes of requests
// cost a few KB per kind instead of one number per request; percentiles are within 2 %.
const BASE_MS = 0.01;
const STEP = Math.log(1.02);
const BUCKETS = 800; // up to 0.01 ms × 1.02^800 ≈ 76 s

export class Histogram {
  private readonly counts = new Float64Array(BUCKETS);
  count = 0;
  maxMs = 0;

  add(ms: number): void {
    const i = ms <= BASE_MS ? 0 : Math.min(BUCKETS - 1, Math.ceil(Math.log(ms / BASE_MS) / STEP));
    this.counts[i]!++;
    this.count++;
    if (ms > this.maxMs) this.maxMs = ms;
  }

  /** The upper bound of the bucket holding the q-quantile (0-1), in ms. */
  quantile(q: number): number {
    if (this.count === 0) return 0;
    const rank = Math.ceil(q * this.count);
    let seen = 0;
    for (let i = 0; i < BUCKETS; i++) {
      seen += this.counts[i]!;
      if (seen >= rank) return Math.min(this.maxMs, BASE_MS * Math.exp(i * STEP));
    }
    return this.maxMs;
  }
}

// Counter and histogram families for the request path, registered in a prom-client Registry like
// its own metrics (same text format, same registry.metrics()). A child is a plain object holding its
// numbers (inc() is an add, observe() a short loop over the bounds), kept by its caller: prom-client's
// labelled children re-validate and re-hash their labels on every call (docs/metrics.md, "Cost").
import type { Metric } from 'prom-client';

type Labels = Record<string, string>;
type LabelValues = Record<string, string | number>;
/** What Registry.metrics() reads from a metric's get() (prom-client's typings name `type` an enum; it is the text). */
interface Sample {
  metricName?: string;
  labels: LabelValues;
  value: number;
}
interface Collected {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  aggregator: 'sum';
  values: Sample[];
}

export class CounterChild {
  value = 0;
  constructor(readonly labels: Labels) {}
  inc(by = 1): void {
    this.value += by;
  }
}

export class HistogramChild {
  /** counts[i]: observations in (bounds[i-1], bounds[i]]; the last slot is above every bound. */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;
  constructor(
    readonly labels: Labels,
    private readonly bounds: Float64Array,
  ) {
    this.counts = new Float64Array(bounds.length + 1);
  }
  observe(value: number): void {
    const b = this.bounds;
    let i = 0;
    while (i < b.length && value > b[i]!) i++;
    this.counts[i]!++;
    this.sum += value;
    this.count++;
  }
}

abstract class Family<C extends { labels: Labels }> {
  private readonly children = new Map<string, C>();
  readonly aggregator = 'sum' as const;
  abstract readonly type: 'counter' | 'histogram';
  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[],
  ) {}

  /** The child for these label values (in labelNames order), made once; keep it. */
  child(...values: string[]): C {
    const key = values.join('\u0000');
    let c = this.children.get(key);
    if (!c) {
      if (values.length !== this.labelNames.length) throw new Error(`${this.name}: ${this.labelNames.length} label values expected`);
      const labels: Labels = {};
      this.labelNames.forEach((n, i) => {
        labels[n] = values[i]!;
      });
      c = this.make(labels);
      this.children.set(key, c);
    }
    return c;
  }

  protected abstract make(labels: Labels): C;
  protected abstract values(c: C): Sample[];

  /** prom-client's collection interface (Registry.metrics() calls it at scrape time). */
  get(): Promise<Collected> {
    const values: Sample[] = [];
    for (const c of this.children.values()) values.push(...this.values(c));
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values });
  }

  reset(): void {
    this.children.clear();
  }

  /** For Registry.registerMetric (which reads name, help, type and get()). */
  asMetric(): Metric {
    return this as unknown as Metric;
  }
}

export class CounterFamily extends Family<CounterChild> {
  readonly type = 'counter' as const;
  protected make(labels: Labels): CounterChild {
    return new CounterChild(labels);
  }
  protected values(c: CounterChild): Sample[] {
    return [{ labels: c.labels, value: c.value }];
  }
}

export class HistogramFamily extends Family<HistogramChild> {
  readonly type = 'histogram' as const;
  private readonly bounds: Float64Array;
  constructor(name: string, help: string, labelNames: readonly string[], buckets: readonly number[]) {
    super(name, help, labelNames);
    if (labelNames.includes('le')) throw new Error('le is reserved for histogram buckets');
    this.bounds = Float64Array.from([...buckets].sort((a, b) => a - b));
  }
  protected make(labels: Labels): HistogramChild {
    return new HistogramChild(labels, this.bounds);
  }
  protected values(c: HistogramChild): Sample[] {
    const out: Sample[] = [];
    let cumulative = 0;
    for (let i = 0; i < this.bounds.length; i++) {
      cumulative += c.counts[i]!;
      out.push({ metricName: `${this.name}_bucket`, labels: { ...c.labels, le: this.bounds[i]! }, value: cumulative });
    }
    out.push({ metricName: `${this.name}_bucket`, labels: { ...c.labels, le: '+Inf' }, value: c.count });
    out.push({ metricName: `${this.name}_sum`, labels: c.labels, value: c.sum });
    out.push({ metricName: `${this.name}_count`, labels: c.labels, value: c.count });
    return out;
  }
}

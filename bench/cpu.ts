// CPU accounting from /proc for bench:mcp and bench:tools (the same method as bench.ts): where the
// machine's CPU went during a scenario, in ms per request. On a small shared machine this compares
// between runs when req/s does not: service vs PostgreSQL vs Redis vs the load generator vs the
// rest of the box (other jobs).
import { readdirSync, readFileSync } from 'node:fs';

export const TICK_MS = 10; // USER_HZ = 100 on Linux

/** CPU ticks (user + system, 10 ms each) a process has used so far; 0 once it is gone. */
export function procTicks(pid: number | string): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(f[11]) + Number(f[12]);
  } catch {
    return 0;
  }
}

// Last ticks seen per process: a backend that exits between two snapshots (the pool closing an
// idle connection) keeps counting with what it had used, so a figure never goes negative.
const seen = new Map<string, number>();

function ticksByComm(comm: string, include: (cmdline: string) => boolean = () => true): number {
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== comm) continue;
      if (include(readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' '))) seen.set(`${comm}:${pid}`, procTicks(pid));
    } catch {
      // exited meanwhile
    }
  }
  let sum = 0;
  for (const [k, v] of seen) if (k.startsWith(`${comm}:`)) sum += v;
  return sum;
}

export interface CpuSnap {
  service: number;
  postgres: number;
  redis: number;
  loadgen: number;
  busy: number;
  /** Every tick of every CPU, idle included. */
  total: number;
}
/** ms per request by process group, and `idle`: the share of the machine's CPU time left idle (0-1). */
export type CpuPerRequest = Record<Exclude<keyof CpuSnap, 'total'> | 'other' | 'idle', number>;

/** Backends of the bench database plus PostgreSQL's background processes, not other databases' backends. */
export function cpuSnap(servicePid: number | undefined, dbName: string): CpuSnap {
  const ours = (cmdline: string) => cmdline.includes(` ${dbName} `) || !/\(\d+\)|\[local\]|autovacuum worker/.test(cmdline);
  const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.split(/\s+/).slice(1).map(Number);
  const total = cpu.reduce((a, b) => a + b, 0);
  const busy = total - (cpu[3] ?? 0) - (cpu[4] ?? 0); // minus idle, iowait
  return {
    service: servicePid ? procTicks(servicePid) : 0,
    postgres: ticksByComm('postgres', ours),
    redis: ticksByComm('redis-server'),
    loadgen: procTicks(process.pid),
    busy,
    total,
  };
}

export function cpuPerRequest(a: CpuSnap, b: CpuSnap, requests: number): CpuPerRequest {
  const d = (k: keyof CpuSnap) => ((b[k] - a[k]) * TICK_MS) / Math.max(1, requests);
  const other = d('busy') - d('service') - d('postgres') - d('redis') - d('loadgen');
  // Idle time of a closed loop (a fixed number of connections) whose CPU figures do not add up to
  // the machine: requests were waiting (commits, round trips, batches), not for a CPU.
  const idle = b.total > a.total ? 1 - (b.busy - a.busy) / (b.total - a.total) : 0;
  return {
    service: d('service'),
    postgres: d('postgres'),
    redis: d('redis'),
    loadgen: d('loadgen'),
    other: Math.max(0, other),
    busy: d('busy'),
    idle: Math.max(0, idle),
  };
}

/** Table columns: CPU ms per request (2 cores = 2000 ms per second). */
export function cpuColumns(c: CpuPerRequest): Record<string, string> {
  const ms = (v: number) => v.toFixed(3);
  return {
    'cpu svc': ms(c.service),
    'cpu pg': ms(c.postgres),
    'cpu redis': ms(c.redis),
    'cpu loadgen': ms(c.loadgen),
    'cpu other': ms(c.other),
    'cpu idle': `${(100 * c.idle).toFixed(0)} %`,
  };
}

/** A memory figure of a process from /proc/<pid>/status, in MB (0 when it cannot be read). */
export function procStatusMb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

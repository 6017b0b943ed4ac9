// Timestamps leave the service as ISO-8601 UTC with milliseconds (what Date#toISOString gives).
// Rows carry PostgreSQL's text form; in a UTC session ("2026-11-22 11:17:12.103456+00") it is
// rewritten directly, which costs a tenth of parsing it into a Date (views format dozens per
// response). Anything else (another session time zone, a Date, an unusual year) goes through Date.
const PG_UTC = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?\+00$/;

export function iso(v: Date | string): string {
  if (typeof v === 'string') {
    const m = PG_UTC.exec(v);
    // Date keeps milliseconds: further digits are dropped, not rounded.
    if (m) return `${m[1]}T${m[2]}.${(m[3] ?? '').padEnd(3, '0').slice(0, 3)}Z`;
  }
  return (v instanceof Date ? v : new Date(v)).toISOString();
}

export const isoOrNull = (v: Date | string | null): string | null => (v === null ? null : iso(v));

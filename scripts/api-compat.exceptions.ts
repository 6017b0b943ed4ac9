// Recorded exceptions: a deliberate break is allowed only with an entry in api/breaking-exceptions.json
// naming the exact change (its id, as the check prints it), why, who and when.
import { readFileSync } from 'node:fs';

export interface Finding {
  check: 'openapi' | 'proto';
  /** e.g. response-property-removed, FIELD_NO_DELETE */
  rule: string;
  where: string;
  message: string;
  /** Stable text an exception names: `<check>: <rule> at <where>` (no line numbers). */
  id: string;
}

export interface BreakingException {
  change: string;
  why: string;
  who: string;
  when: string;
}

const FIELDS = ['change', 'why', 'who', 'when'] as const;

/** Reads and validates the exceptions file; a malformed entry is an error naming it. */
export function loadExceptions(file: string): BreakingException[] {
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new Error(`${file}: ${(e as Error).message}`);
  }
  return parseExceptions(doc, file);
}

export function parseExceptions(doc: unknown, file = 'exceptions'): BreakingException[] {
  const list = (doc as { exceptions?: unknown })?.exceptions;
  if (!Array.isArray(list)) throw new Error(`${file}: expected an object with an "exceptions" array`);
  const problems: string[] = [];
  list.forEach((e: Record<string, unknown>, i) => {
    for (const f of FIELDS) if (typeof e?.[f] !== 'string' || !(e[f] as string).trim()) problems.push(`exceptions[${i}].${f} must be a non-empty string`);
    if (typeof e?.when === 'string' && !/^\d{4}-\d{2}-\d{2}$/.test(e.when)) problems.push(`exceptions[${i}].when must be a date (YYYY-MM-DD)`);
    const extra = Object.keys(e ?? {}).filter((k) => !(FIELDS as readonly string[]).includes(k));
    if (extra.length) problems.push(`exceptions[${i}] has unknown field(s) ${extra.join(', ')}`);
  });
  if (problems.length) throw new Error(`${file}:\n  ${problems.join('\n  ')}`);
  return list as BreakingException[];
}

export interface Verdict {
  /** Breaks with no exception: the check fails on these. */
  breaking: Finding[];
  excepted: { finding: Finding; exception: BreakingException }[];
  /** Entries that matched nothing (stale after a baseline move, or mistyped). */
  unused: BreakingException[];
}

/** An exception silences exactly the finding whose id it names, nothing else. */
export function applyExceptions(findings: Finding[], exceptions: BreakingException[]): Verdict {
  const byId = new Map(exceptions.map((e) => [e.change.trim(), e]));
  const used = new Set<BreakingException>();
  const v: Verdict = { breaking: [], excepted: [], unused: [] };
  for (const f of findings) {
    const e = byId.get(f.id);
    if (e) {
      used.add(e);
      v.excepted.push({ finding: f, exception: e });
    } else v.breaking.push(f);
  }
  v.unused = exceptions.filter((e) => !used.has(e));
  return v;
}

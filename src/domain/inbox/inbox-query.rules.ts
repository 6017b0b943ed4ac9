// The inbox search language, one for the web app's search box and the agent tools: free words
// (word prefixes of the title, summary, label values and actor name; case- and accent-insensitive)
// and qualifiers `is:unread|read|snoozed|done`, `severity:critical,warn`, `status:firing`,
// `type:<event type prefix>`, `from:<token label or integrator slug>`, `after:` / `before:` (UTC
// dates, YYYY-MM-DD), each negated by a leading `-`. A part it cannot read is an error naming it.
import { z } from 'zod';
import { EXTERNAL_STATUSES, SEVERITIES } from '../events/event.limits.js';
import { INBOX_LIMITS } from './inbox.limits.js';

export const QUALIFIERS = ['is', 'severity', 'status', 'type', 'from', 'after', 'before'] as const;
export type Qualifier = (typeof QUALIFIERS)[number];
const IS_VALUES = ['unread', 'read', 'snoozed', 'done'] as const;

export interface QueryFilter {
  name: Qualifier;
  /** Alternatives (a comma list): any of them matches. Dates: one ISO day. */
  values: string[];
  negated: boolean;
}

export interface InboxQuery {
  /** Folded words, each a word prefix every match must contain. */
  words: string[];
  filters: QueryFilter[];
}

export type ParsedQuery = { ok: true; query: InboxQuery } | { ok: false; part: string; message: string };

/** Lower case without accents: the form words are compared in (the SQL side folds the same way). */
export function fold(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const isDay = (v: string) => DAY.test(v) && !Number.isNaN(Date.parse(`${v}T00:00:00Z`)) && new Date(`${v}T00:00:00Z`).toISOString().startsWith(v);
const EVENT_TYPE_PREFIX = /^[a-z0-9][a-z0-9._-]*$/;

/** Splits on spaces, keeping "quoted phrases" whole (their words then count one by one). */
function tokens(text: string): string[] | { part: string; message: string } {
  const out: string[] = [];
  const re = /\s*(-?[^\s"]*"[^"]*"|-?"[^"]*"|\S+)/gy;
  let m: RegExpExecArray | null;
  let at = 0;
  while (at < text.length && (m = re.exec(text)) !== null) {
    at = re.lastIndex;
    if (m[1]) out.push(m[1]);
  }
  if (out.some((t) => (t.match(/"/g) ?? []).length % 2 === 1))
    return { part: out.find((t) => (t.match(/"/g) ?? []).length % 2 === 1)!, message: 'has a quote that is not closed' };
  return out;
}

function readFilter(name: Qualifier, raw: string): string[] | string {
  const values = raw.split(',').map((v) => v.trim());
  if (values.some((v) => v === '')) return 'needs a value after the colon (alternatives separated by commas)';
  const oneOf = (allowed: readonly string[]) =>
    values.every((v) => allowed.includes(v.toLowerCase())) ? values.map((v) => v.toLowerCase()) : `is one of ${allowed.join(', ')}`;
  switch (name) {
    case 'is':
      return oneOf(IS_VALUES);
    case 'severity':
      return oneOf(SEVERITIES);
    case 'status':
      return oneOf(EXTERNAL_STATUSES);
    case 'type':
      return values.every((v) => v.length <= 60 && EVENT_TYPE_PREFIX.test(v.toLowerCase()))
        ? values.map((v) => v.toLowerCase())
        : 'is the start of an event type (letters, digits, . _ -)';
    case 'from':
      return values.every((v) => v.length <= 80) ? values : 'is a token label or integrator slug (at most 80 characters)';
    case 'after':
    case 'before':
      return values.length === 1 && isDay(values[0]!) ? values : 'is a date as YYYY-MM-DD (UTC)';
  }
}

/** Reads a query; an empty or blank one matches everything. */
export function parseInboxQuery(text: string): ParsedQuery {
  if (text.length > INBOX_LIMITS.queryMax)
    return { ok: false, part: text.slice(0, 20), message: `the query is longer than ${INBOX_LIMITS.queryMax} characters` };
  const parts = tokens(text);
  if (!Array.isArray(parts)) return { ok: false, ...parts };
  if (parts.length > INBOX_LIMITS.queryTermsMax)
    return { ok: false, part: parts[INBOX_LIMITS.queryTermsMax]!, message: `a query has at most ${INBOX_LIMITS.queryTermsMax} parts` };
  const query: InboxQuery = { words: [], filters: [] };
  for (const part of parts) {
    const negated = part.startsWith('-') && part.length > 1;
    const body = negated ? part.slice(1) : part;
    const q = /^([a-zA-Z_]+):(.*)$/s.exec(body);
    // `https://…` and the like are text, not a qualifier.
    if (q && !q[2]!.startsWith('//')) {
      const name = q[1]!.toLowerCase();
      if (!(QUALIFIERS as readonly string[]).includes(name))
        return { ok: false, part, message: `is not a qualifier (use ${QUALIFIERS.map((n) => `${n}:`).join(', ')})` };
      const values = readFilter(name as Qualifier, q[2]!.replaceAll('"', ''));
      if (typeof values === 'string') return { ok: false, part, message: `${name}: ${values}` };
      query.filters.push({ name: name as Qualifier, values, negated });
      continue;
    }
    if (negated) return { ok: false, part, message: 'a leading - negates a qualifier (e.g. -is:read), not a word' };
    for (const w of fold(body.replaceAll('"', '')).split(/[^\p{L}\p{N}]+/u)) if (w !== '') query.words.push(w);
  }
  if (query.words.length > INBOX_LIMITS.queryTermsMax)
    return { ok: false, part: text.slice(0, 40), message: `a query has at most ${INBOX_LIMITS.queryTermsMax} words` };
  return { ok: true, query };
}

/** The `query` input of the list operations: read once here; a blank query is no search. */
export const InboxQueryField = z
  .string()
  .transform((text, ctx) => {
    const r = parseInboxQuery(text);
    if (r.ok) return r.query.words.length === 0 && r.query.filters.length === 0 ? undefined : r.query;
    ctx.addIssue({ code: 'custom', message: `could not read ${JSON.stringify(r.part)}: ${r.message}`, params: { code: 'invalid_query' } });
    return z.NEVER;
  })
  .optional();

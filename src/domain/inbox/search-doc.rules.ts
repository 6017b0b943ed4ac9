// The inbox search index (notifications.search_doc, a tsvector behind a GIN index): what a row is
// found by, and the tsquery a search becomes. Lexemes are made here, never by PostgreSQL's text
// parser (whose idea of a word follows the server's locale): words of the title, summary, label
// values and actor name, folded like the query (fold(): lower case, accents dropped), each behind
// a short key of the owner's id, plus the severity and event type of an event. The key keeps one
// user's prefix search among their own lexemes: `dep*` expands over that user's words starting
// with `dep`, not over every user's (the GIN index is one for all). Keys of two users may
// collide; the statements also filter on user_id, so a collision costs a recheck, never a leak.
import { fold } from './inbox-query.rules.js';
import type { InboxQuery, QueryFilter } from './inbox-query.rules.js';

export const SEARCH_DOC_LIMITS = {
  /** Longer words are indexed (and searched) by their first this many characters. */
  wordMax: 40,
  /** Distinct lexemes one row keeps (a 500-character summary has about 80 words). */
  lexemesMax: 200,
} as const;

/** The owner's key: the last 6 hex digits of the id (random in v4 and v7 uuids alike). */
export function userKey(userId: string): string {
  return userId.replaceAll('-', '').slice(-6).toLowerCase();
}

const NOT_ASCII = /[^\x00-\x7f]/;
const ASCII_SEPARATORS = /[^a-z0-9]+/;
const SEPARATORS = /[^\p{L}\p{N}]+/u;

/**
 * The words of a text as the index holds them: folded, split on what is not a letter or digit. An
 * ASCII text (most of them) takes the short way: lower case and an ASCII split give the same words.
 */
export function indexWords(text: string): string[] {
  const ascii = !NOT_ASCII.test(text);
  const parts = ascii ? text.toLowerCase().split(ASCII_SEPARATORS) : fold(text).split(SEPARATORS);
  const out: string[] = [];
  for (const w of parts) if (w !== '') out.push(w.length > SEARCH_DOC_LIMITS.wordMax ? w.slice(0, SEARCH_DOC_LIMITS.wordMax) : w);
  return out;
}

/** What a row is found by besides its event's severity and type (those are added by searchDocSql). */
export interface SearchDocSource {
  userId: string;
  title: string;
  summary?: string | null | undefined;
  /** Label values (keys are not searched). */
  labels?: unknown;
  actorName?: string | null | undefined;
}

/** The word lexemes of one row (distinct, never empty strings; `array_to_tsvector` takes them as they are). */
export function searchLexemes(src: SearchDocSource): string[] {
  const words = new Set<string>();
  const add = (text: unknown) => {
    if (typeof text === 'string' && text !== '') for (const w of indexWords(text)) words.add(w);
  };
  add(src.title);
  add(src.summary);
  if (src.labels !== null && typeof src.labels === 'object' && !Array.isArray(src.labels)) for (const v of Object.values(src.labels)) add(v);
  add(src.actorName);
  const key = `${userKey(src.userId)}:`;
  const out: string[] = [];
  for (const w of words) {
    if (out.length === SEARCH_DOC_LIMITS.lexemesMax) break;
    out.push(key + w);
  }
  return out;
}

/**
 * searchLexemes as a text[] literal for a statement parameter. Lexemes hold letters, digits and
 * the key's hex and colon only (indexWords splits on everything else), so no element needs escaping.
 */
export const searchLexemesLiteral = (src: SearchDocSource): string => {
  const l = searchLexemes(src);
  return l.length === 0 ? '{}' : `{"${l.join('","')}"}`;
};

/** userKey() in SQL, of a uuid expression. */
export const userKeySql = (userIdSql: string): string => `right(replace(${userIdSql}::text, '-', ''), 6)`;

/**
 * The search document in SQL: the word lexemes (searchLexemes, a text[] expression) and the
 * severity, event type and sending token lexemes of the row's delivery, made from the delivery's
 * own columns (a repeat changes the text, never those), NULLs skipped.
 */
export const searchDocSql = (words: string, userId: string, severity: string, eventType: string, tokenId: string): string => {
  const k = userKeySql(userId);
  return `array_to_tsvector(coalesce(${words}, '{}'::text[]) || array_remove(array[${k} || '!s:' || ${severity}, ${k} || '!t:' || lower(${eventType}), ${k} || '!f:' || replace(${tokenId}::text, '-', '')], null))`;
};

/**
 * The expression behind the search index (Migration20261201000000InboxSearchState), over `n`
 * (notifications): the row's search document and one more lexeme, its state behind its owner's
 * key (`<key>!v:inbox`). A search of one view ANDs that lexeme (stateLexeme), so the index finds
 * only the rows of the view: rows moved to Done cost a search of the Inbox nothing. A state
 * change rewrites the row's index entries anyway (the state is in the list index: no HOT update),
 * so the lexeme costs triage nothing either. A query must spell the expression exactly so.
 */
export const SEARCH_INDEX_EXPR = `(n.search_doc || array_to_tsvector(array[${userKeySql('n.user_id')} || '!v:' || n.state]))`;

/** The state lexeme of SEARCH_INDEX_EXPR as a tsquery operand. */
export const stateLexemeQuery = (userId: string, state: string): string => `'${userKey(userId)}!v:${state}'`;

/** A lexeme as a tsquery operand: quoted (lexemes hold no quote or backslash: letters, digits, `.-_:!`). */
const operand = (lexeme: string, prefix: boolean) => `'${lexeme.replaceAll("'", "''").replaceAll('\\', '\\\\')}'${prefix ? ':*' : ''}`;

/**
 * The caller's sending tokens a `from:` qualifier names (by label or integrator slug), looked up
 * before the search: its ids. A search without a positive `from:` never calls it.
 */
export type FromTokens = (f: QueryFilter) => readonly string[];

/** Whether a search has a part the index finds (a word, a positive severity, type or from). */
const hasPositiveTerm = (q: InboxQuery) =>
  q.words.length > 0 || q.filters.some((f) => !f.negated && (f.name === 'severity' || f.name === 'type' || f.name === 'from'));

/**
 * The tsquery of a search's words and its `severity:`, `type:` and positive `from:` qualifiers,
 * or undefined when the search has no word and no positive severity, type or from. Every word is
 * a prefix; comma alternatives are ORs; a `from:` is the lexemes of the caller's tokens it names
 * (`<key>!f:none`, which no row has, when it names none). A negated severity or type is a NOT in
 * it only beside a positive part (a tsquery of NOTs alone would be a walk of the whole index):
 * without one it is checked on the delivery. A row without a severity or type lexeme (not an
 * event) matches the NOT, as it matches the row check.
 */
export function searchTsquery(userId: string, q: InboxQuery, fromTokens?: FromTokens): string | undefined {
  const parts = searchTsqueryParts(userId, q, fromTokens);
  return parts && tsqueryOf(parts);
}

/** The operands ANDed: every positive one, or only `positive[only]`, and the NOTs. */
export const tsqueryOf = (parts: TsqueryParts, only?: number): string =>
  [...(only === undefined ? parts.positive : [parts.positive[only]!]), ...parts.negated].join(' & ');

export interface TsqueryParts {
  positive: string[];
  negated: string[];
}

/**
 * searchTsquery's operands, ANDed: the positive ones (a word; a severity, type or from with its
 * alternatives) and the NOTs. A tsquery of one positive operand and every NOT finds a superset
 * of the search's rows through the index: reading one operand's rows costs the index that
 * operand's rows only (an AND of prefixes reads each operand's rows in full).
 */
export function searchTsqueryParts(userId: string, q: InboxQuery, fromTokens?: FromTokens): TsqueryParts | undefined {
  if (!hasPositiveTerm(q)) return undefined;
  const k = userKey(userId);
  const positive: string[] = q.words.map((w) => operand(`${k}:${w.slice(0, SEARCH_DOC_LIMITS.wordMax)}`, true));
  const negated: string[] = [];
  const anyOf = (alts: string[]) => (alts.length === 1 ? alts[0]! : `(${alts.join(' | ')})`);
  for (const f of q.filters) {
    if (f.name === 'from' && !f.negated) {
      if (!fromTokens) throw new Error('a positive from: needs the tokens it names');
      const ids = fromTokens(f);
      positive.push(anyOf(ids.length === 0 ? [operand(`${k}!f:none`, false)] : ids.map((id) => operand(`${k}!f:${id.replaceAll('-', '')}`, false))));
      continue;
    }
    if (f.name !== 'severity' && f.name !== 'type') continue;
    const any = anyOf(f.values.map((v) => (f.name === 'severity' ? operand(`${k}!s:${v}`, false) : operand(`${k}!t:${v.toLowerCase()}`, true))));
    if (f.negated) negated.push(`!${any}`);
    else positive.push(any);
  }
  return { positive, negated };
}

/** Whether a qualifier of this search is answered by its tsquery (else by a row condition). */
export const inTsquery = (f: { name: string; negated: boolean }, q: InboxQuery) =>
  (f.name === 'from' && !f.negated) || ((f.name === 'severity' || f.name === 'type') && (!f.negated || hasPositiveTerm(q)));

// Every limit of the cross-type search and of meetings (SPEC C `search`), named once: the zod
// schemas, the SQL, the tool text and the served protocol texts ({{limit.search.<name>}}) read them
// here (search.rules.ts re-exports SEARCH_LIMITS for its importers). No imports.

/** Lengths in characters, counts in items. */
export const SEARCH_LIMITS = {
  query: 200,
  defaultLimit: 20,
  maxLimit: 100,
  /** Characters of context on each side of the match in a snippet. */
  snippetContext: 80,
  /** Full-text rank is computed on at most this many characters of a long field. */
  rankChars: 20_000,
  /**
   * Per type, only this many matches (title matches first, then newest) are ranked: a query that
   * matches most of a large table stays bounded in cost (about 50 µs of ranking per candidate).
   */
  rankCandidates: 500,
  /** filters.status: a status word (`^[a-z_]{1,statusMax}$`). */
  statusMax: 30,
  /** A meeting's title (meetings.create). */
  meetingTitleMax: 200,
} as const;

// A hot statement starts with PREPARED: on PostgreSQL it then runs as a named prepared statement,
// parsed and planned once per pooled connection instead of on every call (infra/db/prepared-statements.ts).
// Planning was about half of PostgreSQL's CPU per published event. Use it only for fixed SQL text
// with plain `?` placeholders (no `??`, no text built from input, no apostrophes in comments);
// on PGlite it is an ordinary comment.
export const PREPARED = '/* prepared */';

/**
 * PREPARED for statements whose text varies with the parts of a request (an inbox search: one
 * text per combination of its parts): prepared only while the connection's statements take at
 * most half of their bound, so such texts never take the room of the fixed hot ones.
 */
export const PREPARED_IF_ROOM = '/* prepared if room */';

/** A PostgreSQL array literal for `= any(?::type[])` (a JS array would be expanded into a list). */
export const pgArray = (values: readonly string[]): string => `{${values.map((v) => `"${v.replace(/["\\]/g, '\\$&')}"`).join(',')}}`;

// A hot statement starts with PREPARED: on PostgreSQL it then runs as a named prepared statement,
// parsed and planned once per pooled connection instead of on every call (infra/db/prepared-statements.ts).
// Planning was about half of PostgreSQL's CPU per published event. Use it only for fixed SQL text
// with plain `?` placeholders (no `??`, no text built from input, no apostrophes in comments);
// on PGlite it is an ordinary comment.
export const PREPARED = '/* prepared */';

/** A PostgreSQL array literal for `= any(?::type[])` (a JS array would be expanded into a list). */
export const pgArray = (values: readonly string[]): string => `{${values.map((v) => `"${v.replace(/["\\]/g, '\\$&')}"`).join(',')}}`;

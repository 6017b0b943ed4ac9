// Every limit of the documents area (SPEC C doc tools), named once: the zod schemas, the tool texts
// and the served protocol texts ({{limit.doc.<name>}}) read them here (docs.rules.ts re-exports
// DOC_LIMITS for its importers). No imports: the web app may import this file too.

/** Lengths in characters, counts in items. */
export const DOC_LIMITS = {
  title: 300,
  body: 100_000,
  slug: 120,
  spaceSlug: 100,
  changeSummary: 500,
  query: 200,
  /** list_docs, search_docs, list_doc_drafts, search_by_tags `limit`. */
  listMax: 100,
  listDefault: 20,
  /** list_tags `limit`. */
  tagListMax: 200,
  tagListDefault: 100,
  /** Pages on the path from a root page to a page, both included. */
  maxDepth: 20,
  /** A tag's length; tags per tag_doc call; tags a document carries. */
  tag: 50,
  tagsPerCall: 20,
  tagsPerPage: 50,
  /** Characters of context on each side of the first match in a search snippet. */
  snippetContext: 80,
} as const;

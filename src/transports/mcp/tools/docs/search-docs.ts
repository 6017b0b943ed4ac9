import { searchDocs, SearchDocsOutput } from '../../../../domain/docs/search-docs.js';
import type { ToolDefinition } from '../tool.js';
import { DOC_LIMITS } from '../../../../domain/docs/docs.limits.js';

export const searchDocsTool: ToolDefinition = {
  name: 'search_docs',
  title: 'Search documents',
  description: `Case-insensitive substring search over document titles and bodies you can see. Title matches first, then full-text rank. Each hit has matched_field (title or body) and a snippet around the first match. Filters as list_docs; limit 1-${DOC_LIMITS.listMax} (default ${DOC_LIMITS.listDefault}). Scope read:docs.`,
  operation: searchDocs,
  output: SearchDocsOutput,
  readOnly: true,
};

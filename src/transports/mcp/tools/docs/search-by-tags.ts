import { searchByTags, SearchByTagsOutput } from '../../../../domain/docs/search-by-tags.js';
import type { ToolDefinition } from '../tool.js';
import { DOC_LIMITS } from '../../../../domain/docs/docs.limits.js';

export const searchByTagsTool: ToolDefinition = {
  name: 'search_by_tags',
  title: 'Find documents by tags',
  description: `Documents you can see carrying any (match any, default) or all (match all) of tags; each hit lists its tags. Filters as list_docs; limit 1-${DOC_LIMITS.listMax} (default ${DOC_LIMITS.listDefault}). Scope read:docs.`,
  operation: searchByTags,
  output: SearchByTagsOutput,
  readOnly: true,
};

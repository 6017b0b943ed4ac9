import { searchByTags, SearchByTagsOutput } from '../../../../domain/docs/search-by-tags.js';
import type { ToolDefinition } from '../tool.js';

export const searchByTagsTool: ToolDefinition = {
  name: 'search_by_tags',
  title: 'Find documents by tags',
  description:
    'Documents you can see carrying any (match any, default) or all (match all) of tags; each hit lists its tags. Filters as list_docs; limit 1-100 (default 20). Scope read:docs.',
  operation: searchByTags,
  output: SearchByTagsOutput,
  readOnly: true,
};

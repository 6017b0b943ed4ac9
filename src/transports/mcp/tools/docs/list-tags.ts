import { listTags, ListTagsOutput } from '../../../../domain/docs/list-tags.js';
import type { ToolDefinition } from '../tool.js';
import { DOC_LIMITS } from '../../../../domain/docs/docs.limits.js';

export const listTagsTool: ToolDefinition = {
  name: 'list_tags',
  title: 'List document tags',
  description: `Tags on the drafts and published documents you can see, each with the number of such documents, most used first. Filters: project_slug, space_slug, prefix; limit 1-${DOC_LIMITS.tagListMax} (default ${DOC_LIMITS.tagListDefault}). Scope read:docs.`,
  operation: listTags,
  output: ListTagsOutput,
  readOnly: true,
};

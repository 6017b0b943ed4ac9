import { search, SearchOutput } from '../../../../domain/search/search.js';
import type { ToolDefinition } from '../tool.js';
import { SEARCH_LIMITS } from '../../../../domain/search/search.limits.js';

export const searchTool: ToolDefinition = {
  name: 'search',
  title: 'Search everything',
  description:
    'Case-insensitive substring search across feedback, tasks, meetings, your own notifications and comments (task and feedback comments), limited to what you can see. ' +
    'types narrows the kinds (default all); filters: project_slug, author_email, since (ISO date-time, on createdAt), status (task/feedback status, the parent status for comments, read or unread for notifications; meetings have none). ' +
    `Hits are ordered by score (title matches first, then full-text rank), then newest; each has matched_field, a snippet around the first match and an absolute url. limit 1-${SEARCH_LIMITS.maxLimit} (default ${SEARCH_LIMITS.defaultLimit}). Scope read:*.`,
  operation: search,
  output: SearchOutput,
  readOnly: true,
};

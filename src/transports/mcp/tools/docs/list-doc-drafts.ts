import { listDocDrafts, ListDocDraftsOutput } from '../../../../domain/docs/list-doc-drafts.js';
import type { ToolDefinition } from '../tool.js';
import { DOC_LIMITS } from '../../../../domain/docs/docs.limits.js';

export const listDocDraftsTool: ToolDefinition = {
  name: 'list_doc_drafts',
  title: 'List document drafts',
  description: `Drafts in your range, newest first: your own; every draft of projects you own or lead; all drafts for admin and assistant. Filters: project_slug, space_slug; limit 1-${DOC_LIMITS.listMax} (default ${DOC_LIMITS.listDefault}). Scope read:docs.`,
  operation: listDocDrafts,
  output: ListDocDraftsOutput,
  readOnly: true,
};

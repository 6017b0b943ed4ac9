import { listDocs, ListDocsOutput } from '../../../../domain/docs/list-docs.js';
import type { ToolDefinition } from '../tool.js';
import { DOC_LIMITS } from '../../../../domain/docs/docs.limits.js';

export const listDocsTool: ToolDefinition = {
  name: 'list_docs',
  title: 'List documents',
  description: `Documents you can see ({count, docs[]}), pinned first, then most recently updated. Filters: project_slug, space_slug, status (draft, published, archived; default drafts in your range and published pages), kind (page, guide, runbook, decision, note); limit 1-${DOC_LIMITS.listMax} (default ${DOC_LIMITS.listDefault}). Scope read:docs.`,
  operation: listDocs,
  output: ListDocsOutput,
  readOnly: true,
};

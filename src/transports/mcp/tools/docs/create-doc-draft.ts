import { createDocDraft, CreateDocDraftOutput } from '../../../../domain/docs/create-doc-draft.js';
import type { ToolDefinition } from '../tool.js';
import { DOC_LIMITS } from '../../../../domain/docs/docs.limits.js';

export const createDocDraftTool: ToolDefinition = {
  name: 'create_doc_draft',
  title: 'Create a document draft',
  description: `Creates a draft in space_slug, or in the project's default space (slug = project slug, created on first use) when only project_slug is given. slug is derived from the title when absent (a given slug already used in the space is CONFLICT). kind: page (default), guide, runbook, decision, note. parent_page_id must be a page of the same space (at most ${DOC_LIMITS.maxDepth} levels). Scope write:docs:draft.`,
  operation: createDocDraft,
  output: CreateDocDraftOutput,
  readOnly: false,
  idempotent: false,
};

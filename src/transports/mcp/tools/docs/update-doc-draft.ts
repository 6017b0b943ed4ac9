import { updateDocDraft, UpdateDocDraftOutput } from '../../../../domain/docs/update-doc-draft.js';
import type { ToolDefinition } from '../tool.js';
import { DOC_LIMITS } from '../../../../domain/docs/docs.limits.js';

export const updateDocDraftTool: ToolDefinition = {
  name: 'update_doc_draft',
  title: 'Update a document draft',
  description: `Edits a draft (title, body, kind, parent_page_id, pinned, change_summary); only its author may. Published documents are changed with update_doc; archived ones are restored first. A parent that would create a cycle or nest deeper than ${DOC_LIMITS.maxDepth} levels is refused. Scope write:docs:draft.`,
  operation: updateDocDraft,
  output: UpdateDocDraftOutput,
  readOnly: false,
};

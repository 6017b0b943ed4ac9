import { updateDoc, UpdateDocOutput } from '../../../../domain/docs/update-doc.js';
import type { ToolDefinition } from '../tool.js';

export const updateDocTool: ToolDefinition = {
  name: 'update_doc',
  title: 'Update a published document',
  description:
    'Edits a published document (title, body, kind, parent_page_id, pinned, change_summary); the replaced version is kept as a revision and the answer names the new revision. Allowed for its author, an admin, an assistant, or an owner or lead of the project. Scope write:docs:publish.',
  operation: updateDoc,
  output: UpdateDocOutput,
  readOnly: false,
  idempotent: false,
};

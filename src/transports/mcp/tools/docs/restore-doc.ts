import { restoreDoc, RestoreDocOutput } from '../../../../domain/docs/restore-doc.js';
import type { ToolDefinition } from '../tool.js';

export const restoreDocTool: ToolDefinition = {
  name: 'restore_doc',
  title: 'Restore an archived document',
  description:
    'Undoes archive_doc: the document and the pages archived with it return to the status each had (draft or published); restored_count counts them. A page archived with an ancestor comes back by restoring that ancestor. Same callers as publish_doc_draft. Scope write:docs:publish.',
  operation: restoreDoc,
  output: RestoreDocOutput,
  readOnly: false,
};

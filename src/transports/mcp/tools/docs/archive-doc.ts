import { archiveDoc, ArchiveDocOutput } from '../../../../domain/docs/archive-doc.js';
import type { ToolDefinition } from '../tool.js';

export const archiveDocTool: ToolDefinition = {
  name: 'archive_doc',
  title: 'Archive a document',
  description:
    'Archives a draft or published document and its whole subtree; archived_count is the number of pages archived (0 when it already was). Same callers as publish_doc_draft; undo with restore_doc. Scope write:docs:publish.',
  operation: archiveDoc,
  output: ArchiveDocOutput,
  readOnly: false,
  destructive: true,
};

import { tagDoc, TagDocOutput } from '../../../../domain/docs/tag-doc.js';
import type { ToolDefinition } from '../tool.js';

export const tagDocTool: ToolDefinition = {
  name: 'tag_doc',
  title: 'Tag a document',
  description:
    'Adds tags to a document (mode append, default) or sets exactly these tags (mode replace). Needs write:docs:draft on a draft and write:docs:publish on a published document; archived documents are restored first (CONFLICT). Tags are lowercased.',
  operation: tagDoc,
  output: TagDocOutput,
  readOnly: false,
};

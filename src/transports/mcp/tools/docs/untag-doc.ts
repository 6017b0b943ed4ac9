import { untagDoc, UntagDocOutput } from '../../../../domain/docs/untag-doc.js';
import type { ToolDefinition } from '../tool.js';

export const untagDocTool: ToolDefinition = {
  name: 'untag_doc',
  title: 'Remove document tags',
  description: 'Removes tags from a document, or all of them with remove_all: true (exactly one of the two). Scopes and rules as tag_doc.',
  operation: untagDoc,
  output: UntagDocOutput,
  readOnly: false,
};

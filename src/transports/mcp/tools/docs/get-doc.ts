import { getDoc, GetDocOutput } from '../../../../domain/docs/get-doc.js';
import type { ToolDefinition } from '../tool.js';

export const getDocTool: ToolDefinition = {
  name: 'get_doc',
  title: 'Get a document',
  description:
    "One document with its body, by page_id or by space_slug and page_slug. A page outside your visibility (another project, someone else's draft) is NOT_FOUND. Scope read:docs.",
  operation: getDoc,
  output: GetDocOutput,
  readOnly: true,
};

// The document tools (SPEC C list_docs ... search_by_tags, plus update_doc and restore_doc).
import type { ToolDefinition } from '../tool.js';
import { archiveDocTool } from './archive-doc.js';
import { createDocDraftTool } from './create-doc-draft.js';
import { getDocTool } from './get-doc.js';
import { listDocDraftsTool } from './list-doc-drafts.js';
import { listDocsTool } from './list-docs.js';
import { listTagsTool } from './list-tags.js';
import { publishDocDraftTool } from './publish-doc-draft.js';
import { restoreDocTool } from './restore-doc.js';
import { searchByTagsTool } from './search-by-tags.js';
import { searchDocsTool } from './search-docs.js';
import { tagDocTool } from './tag-doc.js';
import { untagDocTool } from './untag-doc.js';
import { updateDocDraftTool } from './update-doc-draft.js';
import { updateDocTool } from './update-doc.js';

export const DOC_TOOLS: ToolDefinition[] = [
  listDocsTool,
  getDocTool,
  searchDocsTool,
  listDocDraftsTool,
  listTagsTool,
  searchByTagsTool,
  createDocDraftTool,
  updateDocDraftTool,
  publishDocDraftTool,
  archiveDocTool,
  restoreDocTool,
  updateDocTool,
  tagDocTool,
  untagDocTool,
];

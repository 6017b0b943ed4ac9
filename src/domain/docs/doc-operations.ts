// The document operations (SPEC C doc tools), for the agent registry in app/operations.ts. Each
// MCP tool in transports/mcp/tools/docs wraps exactly one of these.
import type { Operation } from '../context.js';
import { archiveDoc } from './archive-doc.js';
import { createDocDraft } from './create-doc-draft.js';
import { getDoc } from './get-doc.js';
import { listDocDrafts } from './list-doc-drafts.js';
import { listDocs } from './list-docs.js';
import { listTags } from './list-tags.js';
import { publishDocDraft } from './publish-doc-draft.js';
import { restoreDoc } from './restore-doc.js';
import { searchByTags } from './search-by-tags.js';
import { searchDocs } from './search-docs.js';
import { tagDoc } from './tag-doc.js';
import { untagDoc } from './untag-doc.js';
import { updateDocDraft } from './update-doc-draft.js';
import { updateDoc } from './update-doc.js';

export const DOC_OPERATIONS: readonly Operation<any, any, any>[] = [
  listDocs,
  getDoc,
  searchDocs,
  listDocDrafts,
  listTags,
  searchByTags,
  createDocDraft,
  updateDocDraft,
  publishDocDraft,
  archiveDoc,
  restoreDoc,
  updateDoc,
  tagDoc,
  untagDoc,
];

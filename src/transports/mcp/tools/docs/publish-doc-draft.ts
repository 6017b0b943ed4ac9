import { publishDocDraft, PublishDocDraftOutput } from '../../../../domain/docs/publish-doc-draft.js';
import type { ToolDefinition } from '../tool.js';

export const publishDocDraftTool: ToolDefinition = {
  name: 'publish_doc_draft',
  title: 'Publish a document draft',
  description: 'Publishes a draft. Allowed for its author, an admin, an assistant, or an owner or lead of the project. Scope write:docs:publish.',
  operation: publishDocDraft,
  output: PublishDocDraftOutput,
  readOnly: false,
};

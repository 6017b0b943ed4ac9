// The moderation tools; each wraps exactly one operation of src/domain/moderation.
// The queue itself (list, edit, forward, dismiss) and the breaker reset are ModerationService RPCs.
import type { ToolDefinition } from '../tool.js';
import { issueAdminModerationTokenTool } from './issue-admin-moderation-token.js';

export const MODERATION_TOOLS: ToolDefinition[] = [issueAdminModerationTokenTool];

// The live tool roster (agent protocol 1.22, section "Tools live now"). tools/list shows each
// token only the tools its scopes allow.
import { getNotificationTool } from './get-notification.js';
import { listInboxTool } from './list-inbox.js';
import { markAllNotificationsReadTool } from './mark-all-notifications-read.js';
import { markNotificationReadTool } from './mark-notification-read.js';
import { pingTool } from './ping.js';
import { toListing, type ToolDefinition, type ToolListing } from './tool.js';
import { whoamiTool } from './whoami.js';

export const TOOLS: readonly ToolDefinition[] = [whoamiTool, pingTool, listInboxTool, getNotificationTool, markNotificationReadTool, markAllNotificationsReadTool];

export const TOOLS_BY_NAME: ReadonlyMap<string, { def: ToolDefinition; listing: ToolListing }> = new Map(TOOLS.map((t) => [t.name, { def: t, listing: toListing(t) }]));

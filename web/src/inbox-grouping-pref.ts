// "Group repeats" of the Inbox view: the user's preference `group_inbox` (NotificationSettingsService,
// on by default), the same in every browser they sign in with. Read once per load of the inbox
// (asked for together with the first page on a load of `/`), written by the toggle; another open
// tab takes a change at its next load. Only NotificationSettingsService's Get/SetPreferences: the
// settings page's other clients stay in their own chunks.
import { type Client, createClient } from '@connectrpc/connect';
import { NotificationSettingsService } from '../../gen/fluxdesk/notifications/v1/notifications_pb.js';
import { transport } from './client.js';

const settings: Client<typeof NotificationSettingsService> = createClient(NotificationSettingsService, transport);

const read = (): Promise<boolean> => settings.getPreferences({}).then((r) => r.preferences?.groupInbox ?? true);

let prefetched: Promise<boolean> | undefined;

/** Starts reading the preference at once (in parallel with GetViewer and the first page). */
export function prefetchGrouping(): void {
  prefetched = read();
  prefetched.catch(() => {}); // consumed (and its error handled) by readGrouping
}

/** Whether the user groups repeats (the prefetched answer the first time). */
export function readGrouping(): Promise<boolean> {
  const p = prefetched ?? read();
  prefetched = undefined;
  return p;
}

/** Stores the user's choice; resolves to the stored value. */
export async function writeGrouping(on: boolean): Promise<boolean> {
  const r = await settings.setPreferences({ groupInbox: on });
  return r.preferences?.groupInbox ?? on;
}

import { listInbox, ListInboxOutput, type ListInboxResult } from '../../../domain/inbox/list-inbox.js';
import { INBOX_LIMITS } from '../../../domain/inbox/inbox.limits.js';
import type { InboxItem } from '../../../domain/inbox/notification.view.js';
import { fragment, isPlain, JsonTextWriter, type JsonText } from '../json-text.js';
import type { ToolDefinition } from './tool.js';

// The page's JSON text written by hand (json-text.ts): key for key what JSON.stringify makes of
// the output (list-inbox.ts's handler and toInboxItem build it in this order; tested).
const F = {
  totalCount: fragment('{"totalCount":'),
  unreadCount: fragment(',"unreadCount":'),
  capped: fragment(',"totalCountCapped":true'),
  items: fragment(',"items":['),
  comma: fragment(','),
  end: fragment(']}'),
  id: fragment('{"id":'),
  type: fragment(',"type":'),
  title: fragment(',"title":'),
  summary: fragment(',"summary":'),
  read: fragment(',"read":'),
  createdAt: fragment(',"createdAt":'),
  state: fragment(',"state":'),
  snoozedUntil: fragment(',"snoozedUntil":'),
  groupKey: fragment(',"groupKey":'),
  deliveryId: fragment(',"deliveryId":'),
  eventType: fragment(',"eventType":'),
  fireCount: fragment(',"fireCount":'),
  severity: fragment(',"severity":'),
  externalStatus: fragment(',"externalStatus":'),
  actor: fragment(',"actor":{"userId":'),
  email: fragment(',"email":'),
  name: fragment(',"name":'),
  targetUrl: fragment(',"targetUrl":'),
  close: fragment('}'),
};

/** Every key of an item is written below (a key added to InboxItem fails here until it is). */
const WRITTEN = [
  'id',
  'type',
  'title',
  'summary',
  'read',
  'createdAt',
  'state',
  'snoozedUntil',
  'groupKey',
  'deliveryId',
  'eventType',
  'fireCount',
  'severity',
  'externalStatus',
  'actor',
  'targetUrl',
] as const satisfies readonly (keyof InboxItem)[];
type Unwritten = Exclude<keyof InboxItem, (typeof WRITTEN)[number]>;
const allWritten: Unwritten extends never ? true : Unwritten = true;
void allWritten;

function writeItem(w: JsonTextWriter, it: InboxItem): void {
  const { summary, snoozedUntil } = it;
  if (isPlain(it.type) && isPlain(it.title) && (summary === null || isPlain(summary)) && isPlain(it.groupKey)) {
    // The common item in one piece per form: its texts need no escape, and the id (a UUID), the
    // times (iso()) and the state (an enum) never do.
    const su = summary === null ? 'null' : `"${summary}"`;
    const sn = snoozedUntil === null ? 'null' : `"${snoozedUntil}"`;
    const esu = summary === null ? 'null' : `\\"${summary}\\"`;
    const esn = snoozedUntil === null ? 'null' : `\\"${snoozedUntil}\\"`;
    w.pair(
      `{"id":"${it.id}","type":"${it.type}","title":"${it.title}","summary":${su},"read":${it.read},"createdAt":"${it.createdAt}","state":"${it.state}","snoozedUntil":${sn},"groupKey":"${it.groupKey}"`,
      `{\\"id\\":\\"${it.id}\\",\\"type\\":\\"${it.type}\\",\\"title\\":\\"${it.title}\\",\\"summary\\":${esu},\\"read\\":${it.read},\\"createdAt\\":\\"${it.createdAt}\\",\\"state\\":\\"${it.state}\\",\\"snoozedUntil\\":${esn},\\"groupKey\\":\\"${it.groupKey}\\"`,
    );
  } else {
    w.fragment(F.id).string(it.id);
    w.fragment(F.type).string(it.type);
    w.fragment(F.title).string(it.title);
    w.fragment(F.summary).stringOrNull(summary);
    w.fragment(F.read).boolean(it.read);
    w.fragment(F.createdAt).string(it.createdAt);
    w.fragment(F.state).string(it.state);
    w.fragment(F.snoozedUntil).stringOrNull(snoozedUntil);
    w.fragment(F.groupKey).string(it.groupKey);
  }
  if (it.deliveryId !== undefined) w.fragment(F.deliveryId).string(it.deliveryId);
  if (it.eventType !== undefined) w.fragment(F.eventType).string(it.eventType);
  if (it.fireCount !== undefined) w.fragment(F.fireCount).number(it.fireCount);
  if (it.severity !== undefined) w.fragment(F.severity).string(it.severity);
  if (it.externalStatus !== undefined) w.fragment(F.externalStatus).string(it.externalStatus);
  if (it.actor !== undefined)
    w.fragment(F.actor).string(it.actor.userId).fragment(F.email).string(it.actor.email).fragment(F.name).string(it.actor.name).fragment(F.close);
  if (it.targetUrl !== undefined) w.fragment(F.targetUrl).string(it.targetUrl);
  w.fragment(F.close);
}

/** The output's JSON text and its escaped form, as JSON.stringify would make them. */
export function listInboxText(out: ListInboxResult): JsonText {
  const w = new JsonTextWriter();
  w.fragment(F.totalCount).number(out.totalCount).fragment(F.unreadCount).number(out.unreadCount);
  if (out.totalCountCapped === true) w.fragment(F.capped);
  w.fragment(F.items);
  for (let i = 0; i < out.items.length; i++) {
    if (i > 0) w.fragment(F.comma);
    writeItem(w, out.items[i]!);
  }
  return w.fragment(F.end).text();
}

export const listInboxTool: ToolDefinition = {
  name: 'list_inbox',
  title: 'List inbox',
  description:
    'Your own inbox notifications of one view, newest first: view `inbox` (default: not done, not snoozed), `snoozed`, `done` or `all`. ' +
    `Filters: unreadOnly, type (task, review, meeting, system); limit 1-${INBOX_LIMITS.toolPageMax} (default ${INBOX_LIMITS.toolPageDefault}). ` +
    'totalCount and unreadCount count every notification of that view matching the filters, not only the returned items. ' +
    'Each item has its state (inbox, snoozed, done) and snoozedUntil; an inbound event also deliveryId, eventType, severity, externalStatus and fireCount.',
  operation: listInbox,
  output: ListInboxOutput,
  serialize: listInboxText,
  readOnly: true,
};

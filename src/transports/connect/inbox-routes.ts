// fluxdesk.inbox.v1.InboxService and ViewerService: the caller's own inbox as the web app (and any
// company frontend) shows it, and who is signed in. Unary calls: map -> call -> map. WatchInbox, the
// stream of the caller's inbox changes, and when it ends: see `watch` below.
import { Code, ConnectError, type ConnectRouter, type HandlerContext } from '@connectrpc/connect';
import type { MessageInitShape } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { InboxService, ViewerService, type InboxItemSchema, type WatchInboxResponseSchema } from '../../../gen/fluxdesk/inbox/v1/inbox_pb.js';
import type { AppDeps } from '../../app/deps.js';
import type { Operation } from '../../domain/context.js';
import type { AgentPrincipal } from '../../domain/principal.js';
import { DomainError } from '../../domain/errors.js';
import type { InboxChangeBatch } from '../../domain/inbox/inbox-feed.js';
import type { InboxItemView } from '../../domain/inbox/inbox-item.view.js';
import { listInboxItems } from '../../domain/inbox/list-inbox-items.js';
import { getInboxItem } from '../../domain/inbox/get-inbox-item.js';
import { markInboxItemRead } from '../../domain/inbox/mark-inbox-item-read.js';
import { markAllNotificationsRead } from '../../domain/inbox/mark-all-notifications-read.js';
import { getViewer } from '../../domain/inbox/get-viewer.js';
import { markNotificationsDone } from '../../domain/inbox/mark-notifications-done.js';
import { markNotificationsUnread } from '../../domain/inbox/mark-notifications-unread.js';
import { moveNotificationsToInbox } from '../../domain/inbox/move-notifications-to-inbox.js';
import { markViewDoneOp } from '../../domain/inbox/mark-view-done.js';
import { snoozeNotification } from '../../domain/inbox/snooze-notification.js';
import { watchInbox } from '../../domain/inbox/watch-inbox.js';
import { WATCH_READ_MAX_IDS, watchInboxRead } from '../../domain/inbox/watch-inbox-read.js';
import { checkAgentBearer } from '../../domain/tokens/check-agent-bearer.js';
import { call, REQUEST_ID, runConnect } from './call.js';
import { toConnectError } from './errors.js';
import { defined, isoOfTimestamp } from './mappers.js';
import { SESSION_PRINCIPAL, sessionOfCall } from './session-auth.js';

/** A heartbeat after this long without a message (proxies close idle streams at 30-60 s). */
export const HEARTBEAT_MS = 25_000;
/** Rows are sent only on credentials checked at most this long ago. */
export const RECHECK_MS = 1_000;
type WatchTiming = NonNullable<AppDeps['watchTiming']>;
/** The intervals of a service whose deps name none (AppDeps.watchTiming: tests shorten them). */
const WATCH_TIMING: Readonly<WatchTiming> = { heartbeatMs: HEARTBEAT_MS, recheckMs: RECHECK_MS };

const ts = (iso: string) => timestampFromDate(new Date(iso));
const tsOpt = (iso: string | undefined) => (iso === undefined ? undefined : ts(iso));

export function inboxItemToProto(v: InboxItemView): MessageInitShape<typeof InboxItemSchema> {
  return {
    ...v,
    readAt: tsOpt(v.readAt),
    createdAt: ts(v.createdAt),
    updatedAt: ts(v.updatedAt),
    externalStatusAt: tsOpt(v.externalStatusAt),
    resolvedAt: tsOpt(v.resolvedAt),
    occurredAt: tsOpt(v.occurredAt),
    snoozedUntil: tsOpt(v.snoozedUntil),
    doneAt: tsOpt(v.doneAt),
    listedAt: ts(v.listedAt),
    supplements: v.supplements.map((s) => ({ id: s.id, markdownBody: s.markdownBody, createdAt: ts(s.createdAt) })),
    actions: v.actions.map((a) => ({ index: a.index, label: a.label, kind: a.kind, url: a.url, actionType: a.actionType })),
  };
}

/** Registers InboxService and ViewerService on a Connect router (both listeners); returns their names. */
export function registerInboxRoutes(router: ConnectRouter, deps: AppDeps): string[] {
  const timing = deps.watchTiming ?? WATCH_TIMING;
  router.service(InboxService, {
    async listInbox(req, ctx) {
      const input = defined({
        view: req.view,
        query: req.query,
        unread_only: req.unreadOnly,
        severities: req.severities.length > 0 ? req.severities : undefined,
        event_type: req.eventType,
        limit: req.limit,
        page_token: req.pageToken,
      });
      const out = await call(deps, listInboxItems, input, ctx);
      return {
        items: out.items.map(inboxItemToProto),
        totalCount: out.totalCount,
        totalCountCapped: out.totalCountCapped,
        unreadCount: out.unreadCount,
        nextPageToken: out.nextPageToken,
        viewCounts: out.viewCounts,
      };
    },
    async getInboxItem(req, ctx) {
      return { item: inboxItemToProto(await call(deps, getInboxItem, { notification_id: req.notificationId }, ctx)) };
    },
    async markRead(req, ctx) {
      const out = await call(deps, markInboxItemRead, { notification_id: req.notificationId }, ctx);
      return { item: inboxItemToProto(out.item), unreadCount: out.unreadCount };
    },
    async markAllRead(_req, ctx) {
      return { markedCount: (await call(deps, markAllNotificationsRead, {}, ctx)).updatedCount };
    },
    async markUnread(req, ctx) {
      return call(deps, markNotificationsUnread, { notificationIds: req.notificationIds }, ctx);
    },
    async markDone(req, ctx) {
      return call(deps, markNotificationsDone, { notificationIds: req.notificationIds }, ctx);
    },
    async markAllDone(req, ctx) {
      const input = defined({
        view: req.view,
        query: req.query,
        unread_only: req.unreadOnly,
        severities: req.severities.length > 0 ? req.severities : undefined,
        event_type: req.eventType,
      });
      return call(deps, markViewDoneOp, input, ctx);
    },
    async moveToInbox(req, ctx) {
      return call(deps, moveNotificationsToInbox, { notificationIds: req.notificationIds }, ctx);
    },
    async snooze(req, ctx) {
      const input = defined({
        notificationId: req.notificationId,
        until: req.until === undefined ? undefined : isoOfTimestamp(req.until),
        preset: req.preset,
        timeZone: req.timeZone,
      });
      const out = await call(deps, snoozeNotification, input, ctx);
      return { notificationId: out.notificationId, snoozedUntil: ts(out.snoozedUntil) };
    },
    watchInbox: (_req, ctx) => watch(deps, timing, ctx),
  });
  router.service(ViewerService, {
    async getViewer(_req, ctx) {
      return call(deps, getViewer, {}, ctx);
    },
  });
  return [InboxService.typeName, ViewerService.typeName];
}

type WatchMessage = MessageInitShape<typeof WatchInboxResponseSchema>;

/** One run of an operation for this stream, as `auth` says (runConnect: no response headers, a stream has sent them). */
async function runForStream<I, O>(
  deps: AppDeps,
  op: Operation<I, O, any>,
  input: unknown,
  hctx: HandlerContext,
  auth: { authorization?: string; principal?: AgentPrincipal },
): Promise<{ output: O; principal: AgentPrincipal }> {
  const r = await runConnect(deps, op, input, hctx, { auth: { authorization: auth.authorization, authenticated: auth.principal } });
  return { output: r.output, principal: r.principal as AgentPrincipal };
}

/**
 * WatchInbox: authenticated once like a unary call (operation inbox.watch), subscribed to the inbox
 * feed, then `ready`, an `upsert` per changed row read afresh (inbox.watch_read, as the caller already
 * authenticated), a `heartbeat` every HEARTBEAT_MS while nothing changes. It ends when the client
 * leaves, the process drains, or the token or web session stops being valid. The credentials are
 * checked again at every heartbeat, at once when the feed says they changed (a sign-out, a revoked
 * token, an offboarding), and before rows are sent when the last check is older than RECHECK_MS: no
 * row reaches a caller whose access ended longer ago than that, even if the feed's signal was lost.
 */
async function* watch(deps: AppDeps, timing: WatchTiming, hctx: HandlerContext): AsyncGenerator<WatchMessage> {
  const authorization = hctx.requestHeader.get('authorization') ?? undefined;
  // A web session (cookie + x-csrf-token, no Authorization header) was resolved by the request gate.
  const session = hctx.values.get(SESSION_PRINCIPAL);
  const { principal } = await runForStream(deps, watchInbox, {}, hctx, { authorization, principal: session });
  const read = async (ids: { notification_ids?: string[]; delivery_ids?: string[] }) =>
    (await runForStream(deps, watchInboxRead, ids, hctx, { principal })).output;

  const sub = deps.ports.inboxFeed.subscribe(principal.userId);
  const stop = new AbortController();
  const end = () => stop.abort();
  hctx.signal.addEventListener('abort', end, { once: true });
  const offDrain = deps.readiness.onDrain(end);
  try {
    try {
      await Promise.race([sub.ready, aborted(stop.signal)]);
    } catch {
      throw new ConnectError('live inbox updates are unavailable; retry later', Code.Unavailable);
    }
    if (stop.signal.aborted) return;
    yield { change: { case: 'ready', value: {} }, unreadCount: (await read({})).unreadCount };

    const changes = sub[Symbol.asyncIterator]();
    let next = changes.next();
    let checkedAt = performance.now();
    const recheck = async () => {
      await stillValid(deps, hctx, session !== undefined, authorization);
      checkedAt = performance.now();
    };
    while (!stop.signal.aborted) {
      const idle = timeout(timing.heartbeatMs, stop.signal);
      const woke = await Promise.race([next, idle.elapsed]);
      idle.cancel();
      if (stop.signal.aborted) return;
      if (woke === 'timeout') {
        // Still a valid caller? A revoked token or an ended session ends the stream (unauthenticated).
        await recheck();
        yield { change: { case: 'heartbeat', value: {} }, unreadCount: (await read({})).unreadCount };
        continue;
      }
      if (woke.done) return;
      next = changes.next();
      if (woke.value.access || performance.now() - checkedAt >= timing.recheckMs) await recheck();
      for (const ids of chunks(woke.value)) {
        const out = await read(ids);
        for (const item of out.items) yield { change: { case: 'upsert', value: inboxItemToProto(item) }, unreadCount: out.unreadCount };
      }
    }
  } finally {
    sub.close();
    offDrain();
    hctx.signal.removeEventListener('abort', end);
  }
}

/** The caller's credentials checked afresh: the session (sign-out, expiry) or the bearer token (revocation). */
async function stillValid(deps: AppDeps, hctx: HandlerContext, bySession: boolean, authorization: string | undefined): Promise<void> {
  if (!bySession) {
    await runForStream(deps, checkAgentBearer, {}, hctx, { authorization });
    return;
  }
  const principal = await sessionOfCall(deps, hctx, hctx.values.get(REQUEST_ID));
  if (!principal) throw toConnectError(new DomainError('unauthenticated', 'the web session has ended; sign in again', { code: 'session_expired' }));
}

/** A feed batch as reads of at most WATCH_READ_MAX_IDS ids each. */
function* chunks(batch: InboxChangeBatch): Generator<{ notification_ids: string[]; delivery_ids: string[] }> {
  const all = [...batch.notificationIds.map((id) => ['n', id] as const), ...batch.deliveryIds.map((id) => ['d', id] as const)];
  for (let i = 0; i < all.length; i += WATCH_READ_MAX_IDS) {
    const part = all.slice(i, i + WATCH_READ_MAX_IDS);
    yield { notification_ids: part.filter(([k]) => k === 'n').map(([, id]) => id), delivery_ids: part.filter(([k]) => k === 'd').map(([, id]) => id) };
  }
}

/** `elapsed` resolves 'timeout' after `ms`, or at once when `signal` aborts; cancel() clears the timer. */
function timeout(ms: number, signal: AbortSignal): { elapsed: Promise<'timeout'>; cancel(): void } {
  let cancel = () => {};
  const elapsed = new Promise<'timeout'>((resolve) => {
    const done = () => {
      cancel();
      resolve('timeout');
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    cancel = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
    };
  });
  return { elapsed, cancel: () => cancel() };
}

/** Resolves when `signal` aborts. */
function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

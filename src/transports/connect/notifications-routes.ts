// fluxdesk.notifications.v1.NotificationSettingsService: the caller's nudge settings (push
// subscriptions, chat destination, severities, quiet hours, done on resolution, grouping in the web
// Inbox view) and failed nudges.
// Map -> call -> map.
import type { ConnectRouter } from '@connectrpc/connect';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { ChatStyle, NotificationSettingsService } from '../../../gen/fluxdesk/notifications/v1/notifications_pb.js';
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { PreferencesSchema } from '../../../gen/fluxdesk/notifications/v1/notifications_pb.js';
import type { AppDeps } from '../../app/deps.js';
import { getVapidPublicKey } from '../../domain/nudges/get-vapid-public-key.js';
import { registerPushSubscriptionOperation } from '../../domain/nudges/register-push-subscription.js';
import { removePushSubscription } from '../../domain/nudges/remove-push-subscription.js';
import { clearChatDestination } from '../../domain/nudges/clear-chat-destination.js';
import { setChatDestinationOperation } from '../../domain/nudges/set-chat-destination.js';
import { getNudgePreferences } from '../../domain/nudges/get-nudge-preferences.js';
import { setNudgePreferences } from '../../domain/nudges/set-nudge-preferences.js';
import type { PreferencesView } from '../../domain/nudges/preferences.view.js';
import { listFailedNudges } from '../../domain/nudges/list-failed-nudges.js';
import { defined } from './mappers.js';
import { call } from './call.js';

const STYLE_TO_PROTO = { slack: ChatStyle.SLACK, feishu: ChatStyle.FEISHU } as const;
const STYLE_FROM_PROTO: Record<number, string | undefined> = { [ChatStyle.SLACK]: 'slack', [ChatStyle.FEISHU]: 'feishu' };

const prefsToProto = (p: PreferencesView): MessageInitShape<typeof PreferencesSchema> => ({
  pushSeverities: p.pushSeverities,
  chatEnabled: p.chatEnabled,
  chatDestination: p.chatDestination ? { urlHint: p.chatDestination.urlHint, style: STYLE_TO_PROTO[p.chatDestination.style] } : undefined,
  pushSubscriptionCount: p.pushSubscriptionCount,
  quietHours: p.quietHours ? { start: p.quietHours.start, end: p.quietHours.end, timeZone: p.quietHours.timeZone, days: [...p.quietHours.days] } : undefined,
  doneOnResolution: p.doneOnResolution,
  groupInbox: p.groupInbox,
});

/** Registers NotificationSettingsService on a Connect router (both listeners). */
export function registerNotificationRoutes(router: ConnectRouter, deps: AppDeps): void {
  const allowHttpHosts = deps.nudgeEgressAllowHosts ?? [];
  const registerPush = registerPushSubscriptionOperation({ allowHttpHosts, extraPushHosts: deps.pushEndpointAllowHosts ?? [] });
  const setChat = setChatDestinationOperation(allowHttpHosts);
  router.service(NotificationSettingsService, {
    async getVapidPublicKey(_req, ctx) {
      return call(deps, getVapidPublicKey, {}, ctx);
    },
    async registerPushSubscription(req, ctx) {
      return call(deps, registerPush, { endpoint: req.endpoint, p256dh: req.p256dh, auth: req.auth }, ctx);
    },
    async removePushSubscription(req, ctx) {
      return call(deps, removePushSubscription, defined({ subscription_id: req.subscriptionId, endpoint: req.endpoint }), ctx);
    },
    async setChatDestination(req, ctx) {
      // An unset style is passed through as invalid so validation names the field.
      return { preferences: prefsToProto(await call(deps, setChat, { url: req.url, style: STYLE_FROM_PROTO[req.style] ?? 'unspecified' }, ctx)) };
    },
    async clearChatDestination(_req, ctx) {
      return { preferences: prefsToProto(await call(deps, clearChatDestination, {}, ctx)) };
    },
    async getPreferences(_req, ctx) {
      return { preferences: prefsToProto(await call(deps, getNudgePreferences, {}, ctx)) };
    },
    async setPreferences(req, ctx) {
      const q = req.quietHours;
      const input = defined({
        push_severities: req.updatePushSeverities ? req.pushSeverities : undefined,
        chat_enabled: req.chatEnabled,
        quiet_hours: q ? { start: q.start, end: q.end, time_zone: q.timeZone, days: q.days } : undefined,
        clear_quiet_hours: req.clearQuietHours || undefined,
        done_on_resolution: req.doneOnResolution,
        group_inbox: req.groupInbox,
      });
      return { preferences: prefsToProto(await call(deps, setNudgePreferences, input, ctx)) };
    },
    async listFailedNudges(req, ctx) {
      const out = await call(deps, listFailedNudges, defined({ limit: req.limit }), ctx);
      return {
        items: out.items.map((f) => ({
          ...f,
          failedAt: timestampFromDate(new Date(f.failedAt)),
          title: f.title ?? undefined,
          severity: f.severity ?? undefined,
        })),
      };
    },
  });
}

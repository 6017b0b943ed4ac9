// Connect clients of the settings and admin pages (NotificationSettingsService, ModerationService),
// over the same kind of transport as client.ts: this origin, JSON, the session's CSRF token as
// `x-csrf-token` on every call, and an unauthenticated answer sends the browser to sign in.
// Imported only by the lazily loaded pages, so the inbox route does not ship these services.
// (When client.ts exports its transport, these two clients can be made from it instead.)
import { type Client, createClient, type Interceptor } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-web';
import { ModerationService } from '../../gen/fluxdesk/moderation/v1/moderation_pb.js';
import { NotificationSettingsService } from '../../gen/fluxdesk/notifications/v1/notifications_pb.js';
import { csrfToken, isUnauthenticated, redirectToLogin } from './client.js';

const csrf: Interceptor = (next) => async (req) => {
  const token = csrfToken();
  if (token) req.header.set('x-csrf-token', token);
  try {
    return await next(req);
  } catch (e) {
    if (isUnauthenticated(e)) redirectToLogin();
    throw e;
  }
};

const transport = createConnectTransport({
  baseUrl: location.origin,
  useBinaryFormat: false,
  interceptors: [csrf],
  fetch: (input, init) => globalThis.fetch(input, { ...init, credentials: 'same-origin' }),
});

export const notificationSettings: Client<typeof NotificationSettingsService> = createClient(NotificationSettingsService, transport);
export const moderation: Client<typeof ModerationService> = createClient(ModerationService, transport);

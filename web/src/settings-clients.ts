// Connect clients of the settings, catalog and admin pages (NotificationSettingsService, ModerationService,
// CatalogPortalService),
// made from client.ts's one transport (this origin, JSON, the session's CSRF token on every call,
// an unauthenticated answer sends the browser to sign in). Imported only by the lazily loaded
// pages, so the inbox route does not ship these clients (it reads and writes its "Group repeats"
// preference through NotificationSettingsService on its own: inbox-grouping-pref.ts).
import { type Client, createClient } from '@connectrpc/connect';
import { CatalogPortalService } from '../../gen/fluxdesk/catalog/v1/catalog_portal_pb.js';
import { ModerationService } from '../../gen/fluxdesk/moderation/v1/moderation_pb.js';
import { NotificationSettingsService } from '../../gen/fluxdesk/notifications/v1/notifications_pb.js';
import { transport } from './client.js';

export const notificationSettings: Client<typeof NotificationSettingsService> = createClient(NotificationSettingsService, transport);
export const moderation: Client<typeof ModerationService> = createClient(ModerationService, transport);
export const catalogPortal: Client<typeof CatalogPortalService> = createClient(CatalogPortalService, transport);

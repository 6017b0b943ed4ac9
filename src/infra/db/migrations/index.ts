import { Migration20261122000000Initial } from './Migration20261122000000Initial.js';
import { Migration20261122010000Catalog } from './Migration20261122010000Catalog.js';
import { Migration20261122020000Onboarding } from './Migration20261122020000Onboarding.js';
import { Migration20261122030000Account } from './Migration20261122030000Account.js';
import { Migration20261122040000Nudges } from './Migration20261122040000Nudges.js';
import { Migration20261122050000Tasks } from './Migration20261122050000Tasks.js';
import { Migration20261122060000Docs } from './Migration20261122060000Docs.js';
import { Migration20261122070000Feedback } from './Migration20261122070000Feedback.js';
import { Migration20261122080000Repositories } from './Migration20261122080000Repositories.js';
import { Migration20261122090000Moderation } from './Migration20261122090000Moderation.js';
import { Migration20261122100000TokenLifecycle } from './Migration20261122100000TokenLifecycle.js';
import { Migration20261122110000Search } from './Migration20261122110000Search.js';
import { Migration20261122120000InboxCounters } from './Migration20261122120000InboxCounters.js';
import { Migration20261122130000NudgeLease } from './Migration20261122130000NudgeLease.js';
import { Migration20261124000000AuditIndexes } from './Migration20261124000000AuditIndexes.js';
import { Migration20261124100000TrigramFastupdate } from './Migration20261124100000TrigramFastupdate.js';
import { Migration20261125000000WebSessions } from './Migration20261125000000WebSessions.js';
import { Migration20261128000000ExternalStatusAt } from './Migration20261128000000ExternalStatusAt.js';
import { Migration20261128100000OidcIdentities } from './Migration20261128100000OidcIdentities.js';
import { Migration20261128200000InboxTriage } from './Migration20261128200000InboxTriage.js';
import { Migration20261129000000QuietHours } from './Migration20261129000000QuietHours.js';
import { Migration20261129100000InboxSearch } from './Migration20261129100000InboxSearch.js';
import { Migration20261130120000CatalogPortal } from './Migration20261130120000CatalogPortal.js';
import { Migration20261130200000DeliveryTrace } from './Migration20261130200000DeliveryTrace.js';
import { Migration20261201000000InboxSearchState } from './Migration20261201000000InboxSearchState.js';
import { Migration20261201100000InboxGrouping } from './Migration20261201100000InboxGrouping.js';
import { Migration20261201200000OutboxParked } from './Migration20261201200000OutboxParked.js';
import { Migration20261201400000DeliveryKeys } from './Migration20261201400000DeliveryKeys.js';
import { Migration20261201400100DeliveryKeysBackfill } from './Migration20261201400100DeliveryKeysBackfill.js';
import { Migration20261201500000DeliveriesTokenIndex } from './Migration20261201500000DeliveriesTokenIndex.js';
import { Migration20261202000000DeliveriesPartitioned } from './Migration20261202000000DeliveriesPartitioned.js';
import { Migration20261203000000InboxPartitioned } from './Migration20261203000000InboxPartitioned.js';
import { Migration20261201300000AuditLogPartitions } from './Migration20261201300000AuditLogPartitions.js';

/** Explicit list (no globbing): works the same under tsx, vitest and a bundle. */
export const MIGRATIONS = [
  { name: 'Migration20261122000000Initial', class: Migration20261122000000Initial },
  { name: 'Migration20261122010000Catalog', class: Migration20261122010000Catalog },
  { name: 'Migration20261122020000Onboarding', class: Migration20261122020000Onboarding },
  { name: 'Migration20261122030000Account', class: Migration20261122030000Account },
  { name: 'Migration20261122040000Nudges', class: Migration20261122040000Nudges },
  { name: 'Migration20261122050000Tasks', class: Migration20261122050000Tasks },
  { name: 'Migration20261122060000Docs', class: Migration20261122060000Docs },
  { name: 'Migration20261122070000Feedback', class: Migration20261122070000Feedback },
  { name: 'Migration20261122080000Repositories', class: Migration20261122080000Repositories },
  { name: 'Migration20261122090000Moderation', class: Migration20261122090000Moderation },
  { name: 'Migration20261122100000TokenLifecycle', class: Migration20261122100000TokenLifecycle },
  { name: 'Migration20261122110000Search', class: Migration20261122110000Search },
  { name: 'Migration20261122120000InboxCounters', class: Migration20261122120000InboxCounters },
  { name: 'Migration20261122130000NudgeLease', class: Migration20261122130000NudgeLease },
  { name: 'Migration20261124000000AuditIndexes', class: Migration20261124000000AuditIndexes },
  { name: 'Migration20261124100000TrigramFastupdate', class: Migration20261124100000TrigramFastupdate },
  { name: 'Migration20261125000000WebSessions', class: Migration20261125000000WebSessions },
  { name: 'Migration20261128000000ExternalStatusAt', class: Migration20261128000000ExternalStatusAt },
  { name: 'Migration20261128100000OidcIdentities', class: Migration20261128100000OidcIdentities },
  { name: 'Migration20261128200000InboxTriage', class: Migration20261128200000InboxTriage },
  { name: 'Migration20261129000000QuietHours', class: Migration20261129000000QuietHours },
  { name: 'Migration20261129100000InboxSearch', class: Migration20261129100000InboxSearch },
  { name: 'Migration20261130120000CatalogPortal', class: Migration20261130120000CatalogPortal },
  { name: 'Migration20261130200000DeliveryTrace', class: Migration20261130200000DeliveryTrace },
  { name: 'Migration20261201000000InboxSearchState', class: Migration20261201000000InboxSearchState },
  { name: 'Migration20261201100000InboxGrouping', class: Migration20261201100000InboxGrouping },
  { name: 'Migration20261201200000OutboxParked', class: Migration20261201200000OutboxParked },
  { name: 'Migration20261201300000AuditLogPartitions', class: Migration20261201300000AuditLogPartitions },
  { name: 'Migration20261201400000DeliveryKeys', class: Migration20261201400000DeliveryKeys },
  { name: 'Migration20261201400100DeliveryKeysBackfill', class: Migration20261201400100DeliveryKeysBackfill },
  { name: 'Migration20261201500000DeliveriesTokenIndex', class: Migration20261201500000DeliveriesTokenIndex },
  { name: 'Migration20261202000000DeliveriesPartitioned', class: Migration20261202000000DeliveriesPartitioned },
  { name: 'Migration20261203000000InboxPartitioned', class: Migration20261203000000InboxPartitioned },
];

/**
 * Post-deploy migrations (docs/migrations.md, "Post-deploy migrations"): contract steps the
 * previous release cannot run on. A process applies only the others when it starts; these run
 * on `npx fluxdesk migrate --post-deploy`, once every node runs this release (or at every start
 * with MIGRATE_POST_DEPLOY=on, and always in embedded mode: one process, no older node).
 */
export const POST_DEPLOY_MIGRATIONS: ReadonlySet<string> = new Set(['Migration20261202000000DeliveriesPartitioned', 'Migration20261203000000InboxPartitioned']);

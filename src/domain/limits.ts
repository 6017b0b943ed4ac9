// Every area's limit table under the name the served protocol texts use for it: a text states a
// limit as `{{limit.<area>.<name>}}` (src/transports/legacy/protocol-text.ts), so it says the numbers
// the service enforces. The event limits have their own filler (events/event.limits.ts, which the web
// app imports without this table).
import { CATALOG_LIMITS } from './catalog/catalog.limits.js';
import { DOC_LIMITS } from './docs/docs.limits.js';
import { DAILY_UPDATE_LIMITS } from './daily-updates/daily-updates.limits.js';
import { FEEDBACK_LIMITS } from './feedback/feedback.limits.js';
import { INBOX_LIMITS } from './inbox/inbox.limits.js';
import { MODERATION_LIMITS } from './moderation/moderation.limits.js';
import { NUDGE_LIMITS } from './nudges/nudges.limits.js';
import { PROJECT_LIMITS } from './projects/projects.limits.js';
import { REPO_LIMITS } from './repositories/repositories.limits.js';
import { REQUEST_LIMITS } from './request.limits.js';
import { SEARCH_LIMITS } from './search/search.limits.js';
import { TASK_LIMITS } from './tasks/tasks.limits.js';
import { TOKEN_LIMITS } from './tokens/tokens.limits.js';
import { USER_LIMITS } from './users/users.limits.js';

const LIMIT_TABLES: Readonly<Record<string, Readonly<Record<string, number>>>> = {
  catalog: CATALOG_LIMITS,
  dailyUpdate: DAILY_UPDATE_LIMITS,
  doc: DOC_LIMITS,
  feedback: FEEDBACK_LIMITS,
  inbox: INBOX_LIMITS,
  moderation: MODERATION_LIMITS,
  nudge: NUDGE_LIMITS,
  project: PROJECT_LIMITS,
  repository: REPO_LIMITS,
  request: REQUEST_LIMITS,
  search: SEARCH_LIMITS,
  task: TASK_LIMITS,
  token: TOKEN_LIMITS,
  user: USER_LIMITS,
};

/** Replaces `{{limit.<area>.<name>}}` by that limit; an unknown area or name throws. */
export function fillLimitPlaceholders(text: string): string {
  return text.replace(/\{\{limit\.(\w+)\.(\w+)\}\}/g, (whole, area: string, name: string) => {
    const table = Object.hasOwn(LIMIT_TABLES, area) ? LIMIT_TABLES[area] : undefined;
    if (table === undefined || !Object.hasOwn(table, name)) throw new Error(`unknown limit placeholder ${whole}`);
    return String(table[name]);
  });
}

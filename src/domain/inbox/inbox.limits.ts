// Every limit and vocabulary of the inbox and its triage, named once (docs/contract.md "Inbox
// triage"): the zod schemas, the SQL builders, the MCP tool descriptions, the protocol texts
// ({{limit.inbox.<name>}}) and the web app read them here. No imports: the web app imports it too.

export const INBOX_LIMITS = {
  /** InboxService.ListInbox page size. */
  pageDefault: 50,
  pageMax: 500,
  /** MCP list_inbox page size. */
  toolPageDefault: 50,
  toolPageMax: 200,
  /** Ids per done / back-to-inbox call. */
  bulkIdsMax: 500,
  /** Rows one "mark all done" call changes; the answer says when more remain (call again). */
  bulkViewMax: 1000,
  /** A snooze ends at most this many days ahead. */
  snoozeMaxDays: 90,
  /** wait_for_inbox: how long a call may wait (inside the 8-second gateway timeout). */
  waitSecondsDefault: 5,
  waitSecondsMax: 7,
  /** The search language (inbox-query.rules.ts): characters and parts of one query. */
  queryMax: 500,
  queryTermsMax: 20,
  /**
   * A search counts its matches up to this many (more: the counts say this, and `capped`). Enough
   * to tell a person to narrow the search; small enough that a broad search is counted by reading
   * its newest matching rows in list order, not every match through the index.
   */
  searchCountMax: 100,
  /** Rows of a view a search tests in list order first (inbox-view.repository.ts indexedSearchParts and rowSearchParts). */
  searchProbeRows: 500,
  /** Rows of a view a search reads on past the probe in list order: to count a broad search, or for a page of one with more than searchCountMax matches, before the index's matches are sorted (indexedSearchParts). */
  searchWalkRows: 2000,
  /** Event type filter of ListInbox. */
  eventTypeFilterMax: 120,
} as const;

export type InboxLimitName = keyof typeof INBOX_LIMITS;

/** Where a row is: in the Inbox, snoozed until a time, or done. */
export const ITEM_STATES = ['inbox', 'snoozed', 'done'] as const;
export type ItemState = (typeof ITEM_STATES)[number];

/** The lists a person (or their agent) looks at: one state each, or every row. */
export const INBOX_VIEWS = ['inbox', 'snoozed', 'done', 'all'] as const;
export type InboxView = (typeof INBOX_VIEWS)[number];

/** The states a view lists. */
export const VIEW_STATES: Readonly<Record<InboxView, readonly ItemState[]>> = {
  inbox: ['inbox'],
  snoozed: ['snoozed'],
  done: ['done'],
  all: ITEM_STATES,
};

/** The snooze presets a person picks from, on the wall clock of their time zone (snooze.rules.ts computes them). */
export const SNOOZE_PRESETS = ['one_hour', 'this_evening', 'tomorrow', 'next_week'] as const;
export type SnoozePreset = (typeof SNOOZE_PRESETS)[number];

/** Wall-clock hours of the presets: `this_evening` at 18:00 (refused from then on), `tomorrow` and `next_week` at 09:00. */
export const SNOOZE_HOURS = { evening: 18, morning: 9 } as const;

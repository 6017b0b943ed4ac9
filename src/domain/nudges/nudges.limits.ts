// Every limit of nudges (browser push and chat messages for a new delivery; SPEC Limits "Inbox
// notifications per user per day"), named once: the zod schemas, the receiver URL rule, the
// delivery's daily check, the served protocol texts ({{limit.nudge.<name>}}) and the web settings
// page read them here. No imports: the web app imports this file too.

/** Lengths in characters, counts in items. */
export const NUDGE_LIMITS = {
  /** A receiver URL: a chat destination's webhook URL or a push subscription's endpoint. */
  receiverUrlMax: 2000,
  /** A push subscription's keys (base64url). */
  pushP256dhMax: 200,
  pushAuthMax: 100,
  /** Subscriptions a user keeps (one per browser profile); a new endpoint beyond them replaces the oldest. */
  pushSubscriptionsPerUser: 20,
  /** New deliveries that land in one user's inbox per UTC day (all tokens together); not adjustable. */
  inboxPerUserPerDay: 500,
  /** ListFailedNudges `limit`. */
  failedListMax: 200,
  failedListDefault: 50,
  /** A failed send's error text: as one attempt reports it, and as nudge_failures.last_error keeps it. */
  attemptErrorMax: 200,
  failureErrorMax: 500,
  /** A quiet hours time zone's name (nudge_preferences.quiet_tz). */
  timeZoneMax: 64,
  /**
   * The summary of held nudges goes out once quiet hours ended at least this long ago: publishes
   * that decided "quiet" just before the end have committed by then (one summary per quiet spell).
   */
  quietSummaryGraceSeconds: 60,
} as const;

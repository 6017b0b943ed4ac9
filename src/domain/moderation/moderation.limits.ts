// Every limit of the moderation queue and its tokens (SPEC "Mode 2: moderation"), named once: the
// zod schemas, the tool texts, the served protocol texts ({{limit.moderation.<name>}}) and the web
// moderation page read them here. No imports: the web app imports this file too.

/** Lengths in characters, counts in items. */
export const MODERATION_LIMITS = {
  /** Dismissing a held event: its optional reason. */
  dismissReasonMax: 500,
  /** ListHeldEvents `limit`. */
  listMax: 200,
  listDefault: 50,
  /** daily_limit of a new moderation token when none is given (at most the tokens' cap). */
  tokenDailyLimitDefault: 200,
} as const;

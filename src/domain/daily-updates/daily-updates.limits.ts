// Every limit of a daily update (SPEC C submit_daily_update), named once: the zod schema, the tool
// text and the served protocol texts ({{limit.dailyUpdate.<name>}}) read them here. No imports: the
// web app may import this file too.

/** Lengths in characters, counts in items. */
export const DAILY_UPDATE_LIMITS = {
  mainTasksMax: 20,
  contactWindowMax: 200,
  blockersMax: 2000,
  noteMax: 2000,
} as const;

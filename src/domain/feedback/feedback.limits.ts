// Every limit of feedback (SPEC Limits "Agent tool bounds": feedback body 8000; a longer body is
// rejected, never truncated), named once: the zod schemas, the tool texts and the served protocol
// texts ({{limit.feedback.<name>}}) read them here. No imports: the web app may import this file too.

/** Lengths in characters (Unicode code points for bodies), counts in items. */
export const FEEDBACK_LIMITS = {
  titleMax: 200,
  bodyMax: 8000,
  commentMax: 8000,
  clientMessageIdMax: 100,
  /** list_feedback `limit`. */
  listMax: 100,
  listDefault: 20,
  /** get_feedback: the newest comments it shows. */
  commentsShown: 100,
  /** auto_delete_after: the duration text, and the range it may name (PT1H..P365D). */
  autoDeleteAfterMax: 20,
  autoDeleteMinHours: 1,
  autoDeleteMaxDays: 365,
} as const;

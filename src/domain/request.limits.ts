// The limits of the request headers every surface reads (docs/contract.md Limits "Idempotency-Key",
// "X-Request-Id"), named once: the runner, the HTTP edge, the OpenAPI parameters and the served
// protocol texts ({{limit.request.<name>}}) read them here. No imports: the web app may import it.

/** Lengths in characters; the idempotency window in hours. */
export const REQUEST_LIMITS = {
  /** Idempotency-Key: 1 to this many visible ASCII characters. */
  idempotencyKeyMax: 200,
  /** How long the first answer to an Idempotency-Key is kept and replayed. */
  idempotencyKeptHours: 24,
  /** X-Request-Id: 1 to this many characters of REQUEST_ID_CHARS; else the service makes one. */
  requestIdMax: 120,
} as const;

/** The characters of an X-Request-Id (a regular expression character class body). */
export const REQUEST_ID_CHARS = 'A-Za-z0-9_-';

// Public types of @fluxdesk/sender. The implementation is plain ESM JavaScript (lib/*.js) whose JSDoc
// refers to these types, so `tsc -p clients/sender` checks it against them.

export type Severity = 'critical' | 'warn' | 'info' | 'success';
export type ExternalStatus = 'firing' | 'resolved' | 'pending' | 'approved' | 'rejected' | 'withdrawn';

export interface ActionButton {
  label: string;
  action_type?: 'url' | 'webhook';
  url?: string;
  webhook_url?: string;
}

/**
 * The body of `POST /api/v1/events` (the contract's InboundEvent). `spec_version` ('2') and
 * `occurred_at` (now) are filled in by `send()` when absent; the service rejects unknown keys.
 */
export interface InboundEvent {
  /** Required: 1-120 characters of `[A-Za-z0-9_-]`, stable per logical event (the dedup key). */
  event_id: string;
  event_type: string;
  severity: Severity;
  title: string;
  spec_version?: '2';
  occurred_at?: string;
  summary?: string;
  markdown_body?: string;
  markdown_body_rendering?: 'collapsed' | 'expanded' | 'preview';
  external_url?: string;
  external_status?: ExternalStatus;
  actor?: { email: string; name?: string };
  labels?: Record<string, string>;
  actions?: ActionButton[];
  recipient?: { type: 'email'; value: string };
  recipient_hint?: { email?: string; user_id?: string; display_hint?: string };
  project_slug?: string;
  tone?: 'neutral' | 'positive' | 'negative';
  locale?: string;
}

/** An RFC 7807 problem (`application/problem+json`) as the service sends it on a 4xx or 5xx. */
export interface Problem {
  type?: string;
  title?: string;
  status?: number;
  detail?: string;
  instance?: string;
  requestId?: string;
  code?: string;
  /** On validation failures: field path -> messages. */
  fieldErrors?: Record<string, string[]>;
  [key: string]: unknown;
}

/** The Delivery the service answers with on 202 (new) or 200 (repeat of the same event_id). */
export interface Delivery {
  deliveryId: string;
  deduped?: boolean;
  fireCount?: number;
  [key: string]: unknown;
}

export interface Attempt {
  /** 1-based. */
  attempt: number;
  /** Milliseconds waited before this attempt (0 for the first): a backoff step or a 429's Retry-After. */
  waitedMs: number;
  /** Milliseconds from sending the request to having read the response (or the error). */
  durationMs: number;
  /** The HTTP status, when a response arrived. */
  status?: number;
  /** Why no response arrived: the per-attempt timeout expired, or the connection failed. */
  error?: 'timeout' | 'network';
  /** The underlying error's code or message (e.g. `ECONNREFUSED`, `UND_ERR_SOCKET`). */
  errorDetail?: string;
  /** A 429's `Retry-After`, in milliseconds, when it carried one. */
  retryAfterMs?: number;
  /** The response's `X-Request-Id`, to quote to the service's operators. */
  requestId?: string;
}

export type Outcome = 'delivered' | 'refused' | 'gave_up';

export interface SendResult {
  /** delivered: a 2xx; refused: a 4xx other than 429 (or another status that is never retried); gave_up: the retries ran out. */
  outcome: Outcome;
  eventId: string;
  /** The status of the last response, if the last attempt got one. */
  status?: number;
  /** The 2xx body (202 new, 200 repeat with `deduped: true`). */
  delivery?: Delivery;
  /** The body of the last non-2xx response (a problem+json body, or a stand-in built from the status and text). */
  problem?: Problem;
  /** Why it gave up: all 4 attempts used, or a 429 asked for a longer wait than `maxRetryAfterMs`. */
  reason?: 'attempts_exhausted' | 'retry_after_too_long';
  /** Every attempt, in order. */
  attempts: Attempt[];
  /** The event as sent (with `spec_version` and `occurred_at` filled in). */
  event: InboundEvent;
}

export interface SenderOptions {
  /** The service's base address (`https://fluxdesk.example.com`); `/api/v1/events` is appended (a URL already ending in it is used as is). */
  url: string;
  /** A personal token (`svc-in-pers-…`); sent only in the Authorization header. */
  token: string;
  /** Deadline of one attempt, from sending to having read the response; default 10 000. */
  timeoutMs?: number;
  /** A 429 asking for a longer wait than this gives up at once (dead letter) instead of blocking; default 120 000. */
  maxRetryAfterMs?: number;
  /** Called (and awaited) with the event and the result when the sender gives up. */
  onDeadLetter?: (event: InboundEvent, result: SendResult) => void | Promise<void>;
  /** Default: the global fetch. */
  fetch?: typeof fetch;
  /** Default: a timer. Tests pass their own so that no test waits for real. */
  sleep?: (ms: number) => Promise<void>;
}

export interface Sender {
  /**
   * Publishes one event with the contract's retry policy: 2xx stop; a 4xx other than 429 is not
   * retried; a 429 waits `Retry-After` seconds; a 5xx or a network error waits 1 s, 5 s, 30 s;
   * at most 4 attempts, then `onDeadLetter`. Throws a TypeError, sending nothing, when the event
   * has no valid `event_id`.
   */
  send(event: InboundEvent): Promise<SendResult>;
}

export declare function createSender(options: SenderOptions): Sender;

/** The waits before attempts 2, 3, 4 … after a 5xx or a network error (the contract's 1 s, 5 s, 30 s, 2 min). */
export declare const RETRY_DELAYS_MS: readonly number[];
/** At most this many attempts per event. */
export declare const MAX_ATTEMPTS: number;
export declare const EVENT_ID_PATTERN: RegExp;
/** This package's version (sent in the User-Agent as `fluxdesk-sender/<version>`). */
export declare const VERSION: string;

/** Writes the event as `<dir>/<event_id>.json` atomically (temporary file, fsync, rename); a later event with the same id replaces it. Returns the path. */
export declare function writeSpoolFile(dir: string, event: InboundEvent): Promise<string>;

export interface FlushItem {
  file: string;
  eventId?: string;
  /** invalid: the file is not an event (kept); skipped: not tried because an earlier one gave up (kept). */
  outcome: Outcome | 'invalid' | 'skipped';
  /** Whether the file was removed (delivered or refused) or kept. */
  removed: boolean;
  result?: SendResult;
  error?: string;
}

export interface FlushResult {
  dir: string;
  items: FlushItem[];
}

/**
 * Resends every `<event_id>.json` of the directory, oldest first: delivered and refused files are
 * removed, gave-up ones kept; after the first give-up the rest are skipped (kept) rather than
 * each waiting out its own backoff against a service that is down. A directory that does not exist
 * is an empty spool.
 */
export declare function flushSpool(dir: string, sender: Sender, options?: { onItem?: (item: FlushItem) => void }): Promise<FlushResult>;

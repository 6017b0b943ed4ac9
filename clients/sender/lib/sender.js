// Publishing one event with the contract's retry policy (docs/contract.md "Recommended sender
// behaviour"; the served protocol text, section 12): 2xx stop; 4xx except 429 never retried; 429
// waits Retry-After seconds; 5xx or a network error retries with backoff; at most 4 attempts, then a
// sender-side dead letter. A retry is safe because the service dedups on (token, event_id): a repeat
// is answered 200 `deduped: true` and updates the same row.
import { setTimeout as delay } from 'node:timers/promises';

/** @typedef {import('../index.js').InboundEvent} InboundEvent */
/** @typedef {import('../index.js').SenderOptions} SenderOptions */
/** @typedef {import('../index.js').Sender} Sender */
/** @typedef {import('../index.js').SendResult} SendResult */
/** @typedef {import('../index.js').Attempt} Attempt */
/** @typedef {import('../index.js').Problem} Problem */
/** @typedef {import('../index.js').Delivery} Delivery */

export const VERSION = '0.1.0';

/**
 * The contract's backoff after a 5xx or a network error: the wait before attempt n+1 is entry n-1.
 * With at most 4 attempts only the first three are reached; the 2 min step is kept as the contract
 * lists it, so raising MAX_ATTEMPTS would use it.
 */
export const RETRY_DELAYS_MS = Object.freeze([1_000, 5_000, 30_000, 120_000]);
export const MAX_ATTEMPTS = 4;
/** The contract's event_id: 1-120 characters; also what makes it safe as a spool file name. */
export const EVENT_ID_PATTERN = /^[a-zA-Z0-9_-]{1,120}$/;

const DEFAULT_TIMEOUT_MS = 10_000;
// The longest backoff step: a 429 asking for more (a tripped circuit breaker says minutes) ends in the
// dead letter, to be resent later, rather than holding a CI job or a caller that long.
const DEFAULT_MAX_RETRY_AFTER_MS = 120_000;
const EVENTS_PATH = '/api/v1/events';

/** @param {number} ms */
const realSleep = (ms) => delay(ms);

/**
 * Throws a TypeError unless the event carries a usable event_id.
 * @param {unknown} event
 * @returns {asserts event is InboundEvent}
 */
export function checkEvent(event) {
  if (typeof event !== 'object' || event === null || Array.isArray(event)) throw new TypeError('event must be an object');
  const id = /** @type {{ event_id?: unknown }} */ (event).event_id;
  if (id === undefined || id === null || id === '') {
    throw new TypeError('event_id is required: a stable id of the event in your system (the dedup key that makes a retry safe)');
  }
  if (typeof id !== 'string' || !EVENT_ID_PATTERN.test(id)) throw new TypeError('event_id must be 1-120 characters of A-Z, a-z, 0-9, _ and -');
}

/**
 * The publish URL for a base address (or for the publish URL itself).
 * @param {string} url
 */
export function eventsUrl(url) {
  let parsed;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError(`not a URL: ${JSON.stringify(url)}`);
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw new TypeError(`the URL must be http(s): ${JSON.stringify(url)}`);
  if (parsed.search || parsed.username || parsed.password)
    throw new TypeError('the URL must carry no query and no credentials (the token goes in FLUXDESK_TOKEN)');
  const path = parsed.pathname.replace(/\/+$/, '');
  parsed.pathname = path.endsWith(EVENTS_PATH) ? path : `${path}${EVENTS_PATH}`;
  parsed.hash = '';
  return parsed.toString();
}

/**
 * `Retry-After` in milliseconds: delta-seconds or an HTTP date; undefined when absent or unreadable.
 * @param {string | null} value
 * @param {number} nowMs
 */
export function parseRetryAfter(value, nowMs) {
  if (value === null) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

/**
 * @param {unknown} err
 * @returns {{ error: 'timeout' | 'network', errorDetail: string }}
 */
function describeFailure(err) {
  const e = /** @type {{ name?: string, message?: string, cause?: { code?: string, message?: string } }} */ (err ?? {});
  if (e.name === 'TimeoutError' || e.name === 'AbortError') return { error: 'timeout', errorDetail: 'no response within the timeout' };
  return { error: 'network', errorDetail: e.cause?.code ?? e.cause?.message ?? e.message ?? String(err) };
}

/**
 * @param {number} status
 * @param {string} statusText
 * @param {string} text
 * @returns {Problem}
 */
function problemOf(status, statusText, text) {
  try {
    const body = JSON.parse(text);
    if (typeof body === 'object' && body !== null && !Array.isArray(body)) return body;
  } catch {
    // not JSON: a proxy's page or a plain message
  }
  const firstLine = text.trim().split('\n', 1)[0]?.slice(0, 200);
  return { status, title: firstLine || statusText || `HTTP ${status}` };
}

/**
 * @param {SenderOptions} options
 * @returns {Sender}
 */
export function createSender(options) {
  const target = eventsUrl(options.url);
  if (typeof options.token !== 'string' || options.token.trim() === '') throw new TypeError('token is required');
  const authorization = `Bearer ${options.token.trim()}`;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxRetryAfterMs = options.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS;
  const doFetch = options.fetch ?? globalThis.fetch;
  const sleep = options.sleep ?? realSleep;

  /**
   * One request; never throws.
   * @param {string} body
   * @returns {Promise<{ status?: number, statusText?: string, text: string, headers?: Headers, error?: 'timeout' | 'network', errorDetail?: string }>}
   */
  async function attemptOnce(body) {
    const signal = AbortSignal.timeout(timeoutMs);
    let res;
    try {
      res = await doFetch(target, {
        method: 'POST',
        headers: {
          authorization,
          'content-type': 'application/json; charset=utf-8',
          accept: 'application/json, application/problem+json',
          'user-agent': `fluxdesk-sender/${VERSION}`,
        },
        body,
        signal,
        // A redirect is answered, not followed: a POST must not turn into a GET on another address.
        redirect: 'manual',
      });
    } catch (err) {
      return { text: '', ...describeFailure(err) };
    }
    let text = '';
    try {
      text = await res.text();
    } catch (err) {
      // The status decides: a 2xx means the event is committed even if its body was cut off.
      if (res.status >= 500) return { text: '', ...describeFailure(err), status: res.status };
    }
    return { status: res.status, statusText: res.statusText, text, headers: res.headers };
  }

  return {
    async send(input) {
      checkEvent(input);
      /** @type {InboundEvent} */
      const event = { ...input, spec_version: input.spec_version ?? '2', occurred_at: input.occurred_at ?? new Date().toISOString() };
      // The same bytes on every attempt, so a retry is a true repeat.
      const body = JSON.stringify(event);
      /** @type {Attempt[]} */
      const attempts = [];
      /** @type {SendResult} */
      let result = { outcome: 'gave_up', reason: 'attempts_exhausted', eventId: event.event_id, attempts, event };
      let waitMs = 0;
      for (let n = 1; n <= MAX_ATTEMPTS; n++) {
        if (waitMs > 0) await sleep(waitMs);
        const started = performance.now();
        const r = await attemptOnce(body);
        /** @type {Attempt} */
        const attempt = { attempt: n, waitedMs: waitMs, durationMs: Math.round(performance.now() - started) };
        attempts.push(attempt);
        const requestId = r.headers?.get('x-request-id');
        if (requestId) attempt.requestId = requestId;
        const retryDelay = RETRY_DELAYS_MS[Math.min(n, RETRY_DELAYS_MS.length) - 1] ?? 0;

        if (r.error !== undefined || r.status === undefined) {
          attempt.error = r.error ?? 'network';
          if (r.errorDetail) attempt.errorDetail = r.errorDetail;
          if (r.status !== undefined) attempt.status = r.status;
          result = { outcome: 'gave_up', reason: 'attempts_exhausted', eventId: event.event_id, attempts, event };
          if (r.status !== undefined) result.status = r.status;
          waitMs = retryDelay;
          continue;
        }
        const status = r.status;
        attempt.status = status;
        if (status >= 200 && status < 300) {
          /** @type {SendResult} */
          const delivered = { outcome: 'delivered', eventId: event.event_id, status, attempts, event };
          try {
            const parsed = r.text ? JSON.parse(r.text) : undefined;
            if (parsed && typeof parsed === 'object') delivered.delivery = /** @type {Delivery} */ (parsed);
          } catch {
            // committed all the same (2xx); the Delivery is simply not at hand
          }
          return delivered;
        }
        const problem = problemOf(status, r.statusText ?? '', r.text);
        if (status === 429) {
          const retryAfterMs = parseRetryAfter(r.headers?.get('retry-after') ?? null, Date.now());
          if (retryAfterMs !== undefined) attempt.retryAfterMs = retryAfterMs;
          const wait = retryAfterMs ?? retryDelay;
          result = { outcome: 'gave_up', reason: 'attempts_exhausted', eventId: event.event_id, status, problem, attempts, event };
          if (n < MAX_ATTEMPTS && wait > maxRetryAfterMs) {
            result.reason = 'retry_after_too_long';
            break;
          }
          waitMs = wait;
          continue;
        }
        if (status >= 500) {
          result = { outcome: 'gave_up', reason: 'attempts_exhausted', eventId: event.event_id, status, problem, attempts, event };
          waitMs = retryDelay;
          continue;
        }
        // Any other 4xx (and the statuses never expected here: 1xx, 3xx) is final.
        return { outcome: 'refused', eventId: event.event_id, status, problem, attempts, event };
      }
      if (options.onDeadLetter) await options.onDeadLetter(event, result);
      return result;
    },
  };
}

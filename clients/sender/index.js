// @fluxdesk/sender: publish events to fluxdesk with the contract's retry policy (types: index.d.ts).
export { createSender, EVENT_ID_PATTERN, MAX_ATTEMPTS, RETRY_DELAYS_MS, VERSION } from './lib/sender.js';
export { flushSpool, writeSpoolFile } from './lib/spool.js';

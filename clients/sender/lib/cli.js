// `fluxdesk-send`: publish one event, run a command and publish its outcome, or resend a spool.
// The token comes from FLUXDESK_TOKEN or --token-file only, never from a flag, so it stays out of
// shell history and `ps`. Exit codes: 0 delivered, 2 refused, 3 gave up, 64 usage error.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { constants as osConstants } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { checkEvent, createSender, eventsUrl, MAX_ATTEMPTS, VERSION } from './sender.js';
import { flushSpool, writeSpoolFile } from './spool.js';

/** @typedef {import('../index.js').InboundEvent} InboundEvent */
/** @typedef {import('../index.js').SendResult} SendResult */
/** @typedef {import('../index.js').FlushItem} FlushItem */
/** @typedef {import('../index.js').Attempt} Attempt */
/** @typedef {import('../index.js').Problem} Problem */
/**
 * @typedef {object} Io
 * @property {Record<string, string | undefined>} env
 * @property {{ write(chunk: string): unknown }} stdout
 * @property {{ write(chunk: string): unknown }} stderr
 * @property {AsyncIterable<Buffer | string>} [stdin]
 */
/**
 * @typedef {object} CommandOutcome
 * @property {number} exitCode
 * @property {string | null} signal
 * @property {number} durationMs
 * @property {string} [error]
 */

export const EXIT = Object.freeze({ delivered: 0, refused: 2, gave_up: 3, usage: 64, software: 70 });

const SEVERITIES = ['critical', 'warn', 'info', 'success'];
const STATUSES = ['firing', 'resolved', 'pending', 'approved', 'rejected', 'withdrawn'];
const TITLE_MAX = 200;
const SUMMARY_MAX = 500;

const USAGE = `Usage:
  fluxdesk-send [send] --id ID --type TYPE --title TITLE [event flags] [options]
  fluxdesk-send run --id ID --type TYPE [--title TITLE] [event flags] [options] -- COMMAND [ARGS...]
  fluxdesk-send flush DIR [options]

Environment:
  FLUXDESK_URL     the service's base address, e.g. https://fluxdesk.example.com
  FLUXDESK_TOKEN   a personal token (svc-in-pers-...), or pass --token-file PATH (there is no token flag)

Event flags (fields of POST /api/v1/events):
  --id ID              event_id, required: stable per logical event; sending the same id again
                       updates the same inbox row (200) instead of adding one
  --type TYPE          event_type, required; starts with your token's prefix ("personal." for self-service tokens)
  --title TEXT         title, required for send (run: defaults to the command's name)
  --severity LEVEL     severity: critical | warn | info | success (default info; not with run)
  --status STATUS      external_status: firing | resolved | pending | approved | rejected | withdrawn (not with run)
  --summary TEXT       summary, at most 500 characters
  --body @FILE|TEXT    markdown_body; @FILE reads a file, @- standard input
  --url URL            external_url (https://...)
  --label KEY=VALUE    a label; repeatable
  --action LABEL=URL   a link button (action_type url); repeatable, at most 4

Options:
  --token-file PATH    read the token from this file instead of FLUXDESK_TOKEN
  --spool DIR          keep an event that could not be delivered as DIR/<id>.json (fluxdesk-send flush DIR resends)
  --timeout SECONDS    deadline of one attempt (default 10)
  --json               print the result as one JSON object on stdout
  -h, --help           this text
  --version            the version

run: runs COMMAND (no shell; its output passes through), then publishes severity success and status
resolved on exit 0, or critical and firing otherwise, with the exit code and duration in the summary
and the labels exit_code and duration_s. Only the command's name goes into the title, never its
arguments (they may hold secrets). Use the same --id on every run: a re-run updates the same row.
The exit code is the publish result's, not the command's (that one is printed, and in --json).

Retries: a 5xx or a network error is retried after 1 s, 5 s and 30 s, a 429 after its Retry-After;
a 4xx is not retried. At most ${MAX_ATTEMPTS} attempts.

Exit codes: 0 delivered (202 new, 200 repeat), 2 refused (a 4xx: fix the request or the token),
3 gave up (spooled with --spool), 64 usage error. flush: 0 all delivered, 2 something refused or
unreadable, 3 something still spooled.
`;

class UsageError extends Error {}

/** @satisfies {import('node:util').ParseArgsConfig['options']} */
const OPTIONS = {
  id: { type: 'string' },
  type: { type: 'string' },
  title: { type: 'string' },
  severity: { type: 'string' },
  status: { type: 'string' },
  summary: { type: 'string' },
  body: { type: 'string' },
  url: { type: 'string' },
  label: { type: 'string', multiple: true },
  action: { type: 'string', multiple: true },
  'token-file': { type: 'string' },
  spool: { type: 'string' },
  timeout: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
};
const MULTIPLE = new Set(['label', 'action']);
const EVENT_FLAGS = ['id', 'type', 'title', 'severity', 'status', 'summary', 'body', 'url', 'label', 'action'];

/**
 * @typedef {{ id?: string, type?: string, title?: string, severity?: string, status?: string, summary?: string, body?: string, url?: string,
 *   label?: string[], action?: string[], 'token-file'?: string, spool?: string, timeout?: string, json?: boolean, help?: boolean, version?: boolean }} Flags
 */

/**
 * @param {string[]} argv
 * @returns {{ command: 'send' | 'run' | 'flush', flags: Flags, positionals: string[], commandArgv: string[] }}
 */
function parse(argv) {
  const dashes = argv.indexOf('--');
  const own = dashes === -1 ? argv : argv.slice(0, dashes);
  const commandArgv = dashes === -1 ? [] : argv.slice(dashes + 1);
  let parsed;
  try {
    parsed = parseArgs({ args: own, options: OPTIONS, allowPositionals: true, strict: true, tokens: true });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (/'--token'/.test(message) || own.some((a) => a === '--token' || a.startsWith('--token='))) {
      throw new UsageError('there is no --token flag (it would land in shell history and ps): set FLUXDESK_TOKEN or pass --token-file PATH');
    }
    throw new UsageError(message);
  }
  const seen = new Set();
  for (const t of parsed.tokens) {
    if (t.kind !== 'option' || MULTIPLE.has(t.name)) continue;
    if (seen.has(t.name)) throw new UsageError(`--${t.name} given twice`);
    seen.add(t.name);
  }
  const flags = /** @type {Flags} */ (parsed.values);
  const [first, ...rest] = parsed.positionals;
  const command = first === 'run' || first === 'flush' || first === 'send' ? first : 'send';
  const positionals = first === command ? rest : parsed.positionals;
  return { command, flags, positionals, commandArgv };
}

/**
 * @param {string} name
 * @param {string} value
 */
function splitPair(name, value) {
  const at = value.indexOf('=');
  if (at <= 0 || at === value.length - 1) throw new UsageError(`--${name} takes ${name === 'label' ? 'KEY=VALUE' : 'LABEL=URL'}, got ${JSON.stringify(value)}`);
  return [value.slice(0, at), value.slice(at + 1)];
}

/** @param {AsyncIterable<Buffer | string>} stream */
async function readAll(stream) {
  const chunks = [];
  for await (const c of stream) chunks.push(typeof c === 'string' ? Buffer.from(c) : c);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The event fields the flags give (run adds its own severity, status, title and labels).
 * @param {Flags} flags
 * @param {Io} io
 */
async function eventFields(flags, io) {
  if (!flags.id) throw new UsageError('--id is required: a stable id of the event (the same id again updates the same row)');
  try {
    checkEvent({ event_id: flags.id });
  } catch (err) {
    throw new UsageError(`--id: ${err instanceof Error ? err.message : err}`);
  }
  if (!flags.type) throw new UsageError('--type is required: the event type, starting with your token\'s prefix (e.g. "personal.ci.build")');
  if (flags.severity !== undefined && !SEVERITIES.includes(flags.severity)) throw new UsageError(`--severity must be one of ${SEVERITIES.join(', ')}`);
  if (flags.status !== undefined && !STATUSES.includes(flags.status)) throw new UsageError(`--status must be one of ${STATUSES.join(', ')}`);
  /** @type {Record<string, unknown>} */
  const fields = { event_id: flags.id, event_type: flags.type };
  if (flags.title !== undefined) fields.title = flags.title;
  if (flags.severity !== undefined) fields.severity = flags.severity;
  if (flags.status !== undefined) fields.external_status = flags.status;
  if (flags.summary !== undefined) fields.summary = flags.summary;
  if (flags.url !== undefined) fields.external_url = flags.url;
  if (flags.body !== undefined) {
    if (flags.body === '@-') {
      if (!io.stdin) throw new UsageError('--body @-: no standard input');
      fields.markdown_body = await readAll(io.stdin);
    } else if (flags.body.startsWith('@')) {
      try {
        fields.markdown_body = readFileSync(flags.body.slice(1), 'utf8');
      } catch (err) {
        throw new UsageError(`--body ${flags.body}: ${err instanceof Error ? err.message : err}`);
      }
    } else fields.markdown_body = flags.body;
  }
  if (flags.label?.length) {
    /** @type {Record<string, string>} */
    const labels = {};
    for (const l of flags.label) {
      const [k, v] = splitPair('label', l);
      labels[/** @type {string} */ (k)] = /** @type {string} */ (v);
    }
    fields.labels = labels;
  }
  if (flags.action?.length) {
    fields.actions = flags.action.map((a) => {
      const [label, url] = splitPair('action', a);
      return { label, action_type: 'url', url };
    });
  }
  return fields;
}

/**
 * @param {Flags} flags
 * @param {Io} io
 */
function connection(flags, io) {
  const url = io.env.FLUXDESK_URL;
  if (!url) throw new UsageError("FLUXDESK_URL is not set: the service's base address, e.g. https://fluxdesk.example.com");
  try {
    eventsUrl(url);
  } catch (err) {
    throw new UsageError(`FLUXDESK_URL: ${err instanceof Error ? err.message : err}`);
  }
  let token = io.env.FLUXDESK_TOKEN;
  if (flags['token-file'] !== undefined) {
    try {
      token = readFileSync(flags['token-file'], 'utf8').trim();
    } catch (err) {
      throw new UsageError(`--token-file: ${err instanceof Error ? err.message : err}`);
    }
    if (!token) throw new UsageError(`--token-file: ${flags['token-file']} is empty`);
  }
  if (!token?.trim()) throw new UsageError('no token: set FLUXDESK_TOKEN or pass --token-file PATH');
  let timeoutMs;
  if (flags.timeout !== undefined) {
    const s = Number(flags.timeout);
    if (!Number.isFinite(s) || s <= 0) throw new UsageError('--timeout takes a number of seconds above 0');
    timeoutMs = Math.round(s * 1000);
  }
  // Test-only: multiplies every wait (backoff and Retry-After), so tests of the CLI's retries do
  // not wait for real. The waits reported stay the policy's.
  const scaleText = io.env.FLUXDESK_SEND_RETRY_SCALE;
  let sleep;
  if (scaleText !== undefined && scaleText !== '') {
    const scale = Number(scaleText);
    if (!Number.isFinite(scale) || scale < 0) throw new UsageError('FLUXDESK_SEND_RETRY_SCALE must be a number >= 0');
    /** @param {number} ms */
    sleep = (ms) => delay(ms * scale);
  }
  return { url, token, timeoutMs, sleep };
}

/** @param {number} ms */
const duration = (ms) => (ms < 1000 ? `${ms} ms` : ms % 1000 === 0 || ms >= 10_000 ? `${Math.round(ms / 1000)} s` : `${(ms / 1000).toFixed(1)} s`);

/** @param {Attempt} a */
function attemptLine(a) {
  const what = a.status !== undefined && a.error === undefined ? String(a.status) : `${a.error}${a.errorDetail ? ` (${a.errorDetail})` : ''}`;
  const waited = a.waitedMs > 0 ? ` after waiting ${duration(a.waitedMs)}` : '';
  return `  attempt ${a.attempt}: ${what}${waited}, ${a.durationMs} ms${a.requestId ? `, request ${a.requestId}` : ''}`;
}

/** @param {Problem} problem */
function problemLines(problem) {
  const lines = [];
  if (problem.detail && problem.detail !== problem.title) lines.push(`  ${problem.detail}`);
  const fieldErrors = problem.fieldErrors;
  if (fieldErrors && typeof fieldErrors === 'object') {
    for (const [field, messages] of Object.entries(fieldErrors)) {
      for (const m of Array.isArray(messages) ? messages : [messages]) lines.push(`  ${field}: ${m}`);
    }
  }
  if (problem.requestId) lines.push(`  request id: ${problem.requestId}`);
  return lines;
}

/** @typedef {{ spooled?: string, spoolError?: string, spoolDir?: string, keptAt?: string }} Extra */

/**
 * @param {SendResult} r
 * @param {Extra} extra
 */
function resultJson(r, extra) {
  /** @type {Record<string, unknown>} */
  const out = { outcome: r.outcome, eventId: r.eventId };
  if (r.status !== undefined) out.status = r.status;
  if (r.delivery) {
    out.deliveryId = r.delivery.deliveryId;
    out.deduped = r.delivery.deduped ?? r.status === 200;
    if (r.delivery.fireCount !== undefined) out.fireCount = r.delivery.fireCount;
  }
  if (r.reason && r.outcome === 'gave_up') out.reason = r.reason;
  if (r.problem && r.outcome !== 'delivered') {
    const { type, title, status, detail, fieldErrors, requestId } = r.problem;
    out.problem = { type, title, status, detail, fieldErrors, requestId };
  }
  out.attempts = r.attempts;
  if (r.outcome === 'gave_up') {
    out.spooled = extra.spooled ?? null;
    if (extra.spoolError) out.spoolError = extra.spoolError;
  }
  return out;
}

/**
 * Human lines for one result: [stdout, stderr].
 * @param {SendResult} r
 * @param {Extra} extra
 * @returns {[string[], string[]]}
 */
function resultLines(r, extra) {
  const out = [];
  const err = [];
  const tries = r.attempts.length > 1 ? ` after ${r.attempts.length} attempts` : '';
  if (r.outcome === 'delivered') {
    const d = r.delivery;
    const id = d?.deliveryId ? `, delivery ${d.deliveryId}` : '';
    if (r.status === 200)
      out.push(`delivered ${r.eventId}: 200, a repeat of this id: the existing row is updated (fire count ${d?.fireCount ?? '?'}${id})${tries}`);
    else out.push(`delivered ${r.eventId}: ${r.status} new${id ? ` (${id.slice(2)})` : ''}${tries}`);
    if (r.attempts.length > 1) err.push(...r.attempts.map(attemptLine));
  } else if (r.outcome === 'refused') {
    const p = r.problem ?? {};
    err.push(`fluxdesk-send: refused ${r.eventId}: ${r.status} ${p.title ?? ''}`.trimEnd(), ...problemLines(p));
  } else {
    const last = r.attempts.at(-1);
    const lastText = last
      ? last.error
        ? `${last.error}${last.errorDetail ? ` ${last.errorDetail}` : ''}`
        : `${last.status}${r.problem?.title ? ` ${r.problem.title}` : ''}`
      : '';
    if (r.reason === 'retry_after_too_long') {
      err.push(
        `fluxdesk-send: gave up on ${r.eventId}: the service asked to wait ${duration(last?.retryAfterMs ?? 0)} (429 Retry-After), longer than this sender waits`,
      );
    } else {
      err.push(`fluxdesk-send: gave up on ${r.eventId} after ${r.attempts.length} attempts (last: ${lastText})`);
    }
    err.push(...r.attempts.map(attemptLine));
    if (extra.spooled) err.push(`  spooled to ${extra.spooled} (resend: fluxdesk-send flush ${extra.spoolDir})`);
    else if (extra.keptAt) err.push(`  kept ${extra.keptAt}`);
    else if (extra.spoolError) err.push(`  could NOT spool: ${extra.spoolError}`);
    else err.push('  not kept: pass --spool DIR to keep events that could not be delivered');
  }
  return [out, err];
}

/**
 * Runs the command with inherited stdio; while it runs, SIGINT and SIGTERM go to it (not to us), so
 * its outcome is still published.
 * @param {string[]} argv
 * @returns {Promise<CommandOutcome>}
 */
function runCommand(argv) {
  const started = performance.now();
  const [file, ...args] = /** @type {[string, ...string[]]} */ (argv);
  return new Promise((resolve) => {
    const child = spawn(file, args, { stdio: 'inherit' });
    /** @param {NodeJS.Signals} signal */
    const forward = (signal) => child.kill(signal);
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    let done = false;
    /** @param {CommandOutcome} outcome */
    const finish = (outcome) => {
      if (done) return;
      done = true;
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
      resolve(outcome);
    };
    child.on('error', (err) => {
      const code = /** @type {NodeJS.ErrnoException} */ (err).code;
      // 127 and 126: what a shell answers for a command it cannot find or cannot execute.
      finish({ exitCode: code === 'ENOENT' ? 127 : 126, signal: null, durationMs: Math.round(performance.now() - started), error: code ?? err.message });
    });
    child.on('exit', (code, signal) => {
      const signo = signal ? (osConstants.signals[signal] ?? 0) : 0;
      finish({ exitCode: code ?? 128 + signo, signal, durationMs: Math.round(performance.now() - started) });
    });
  });
}

/**
 * @param {string} text
 * @param {number} max
 */
const clip = (text, max) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/**
 * @param {Record<string, unknown>} fields
 * @param {string[]} commandArgv
 * @param {CommandOutcome} c
 * @returns {InboundEvent}
 */
function commandEvent(fields, commandArgv, c) {
  const ok = c.exitCode === 0 && !c.error;
  const what = ok ? 'succeeded' : c.error ? `could not start (${c.error})` : c.signal ? `killed by ${c.signal}` : `failed (exit code ${c.exitCode})`;
  const program = path.basename(commandArgv[0] ?? '');
  const name = typeof fields.title === 'string' ? fields.title : program;
  const facts = `exit code ${c.exitCode} after ${duration(c.durationMs)}`;
  const summary = typeof fields.summary === 'string' ? `${fields.summary} (${facts})` : `${facts[0]?.toUpperCase()}${facts.slice(1)}.`;
  const given = /** @type {Record<string, string> | undefined} */ (fields.labels);
  /** @type {Record<string, string>} */
  const labels = {
    ...given,
    exit_code: String(c.exitCode),
    duration_s: (c.durationMs / 1000).toFixed(1),
  };
  if (c.signal) labels.signal = c.signal;
  return /** @type {InboundEvent} */ ({
    ...fields,
    severity: ok ? 'success' : 'critical',
    external_status: ok ? 'resolved' : 'firing',
    title: clip(`${name}: ${what}`.replace(/\s+/g, ' '), TITLE_MAX),
    summary: clip(summary, SUMMARY_MAX),
    labels,
  });
}

/**
 * @param {string[]} argv
 * @param {Io} io
 * @returns {Promise<number>}
 */
export async function main(argv, io) {
  let json = false;
  /** @param {string[]} lines */
  const errLines = (lines) => {
    if (lines.length > 0) io.stderr.write(`${lines.join('\n')}\n`);
  };
  try {
    const { command, flags, positionals, commandArgv } = parse(argv);
    json = flags.json === true;
    if (flags.help) {
      io.stdout.write(USAGE);
      return 0;
    }
    if (flags.version) {
      io.stdout.write(`${VERSION}\n`);
      return 0;
    }
    if (command !== 'run' && argv.includes('--'))
      throw new UsageError('"-- COMMAND" belongs to run: fluxdesk-send run --id ID --type TYPE -- COMMAND [ARGS...]');

    if (command === 'flush') {
      const given = EVENT_FLAGS.filter((f) => /** @type {Record<string, unknown>} */ (flags)[f] !== undefined);
      if (given.length > 0) throw new UsageError(`flush resends spooled events as they are: --${given[0]} does not apply`);
      if (flags.spool !== undefined) throw new UsageError('flush takes the directory as its argument: fluxdesk-send flush DIR');
      if (positionals.length !== 1) throw new UsageError('flush takes one directory: fluxdesk-send flush DIR');
      const dir = /** @type {string} */ (positionals[0]);
      const sender = createSender(connection(flags, io));
      /** @param {FlushItem} item */
      const onItem = (item) => {
        if (json) return;
        const name = path.basename(item.file);
        if (item.outcome === 'invalid') errLines([`fluxdesk-send: kept ${name}: not a spooled event (${item.error})`]);
        else if (item.outcome === 'skipped') errLines([`fluxdesk-send: kept ${name}: not tried (an earlier event gave up)`]);
        else if (item.result) {
          const [out, err] = resultLines(item.result, { keptAt: item.file });
          if (out.length > 0) io.stdout.write(`${out.join('\n')}\n`);
          errLines(err);
          if (item.outcome === 'refused' && item.removed) errLines([`  removed ${item.file} (resending it cannot help)`]);
        }
      };
      let flushed;
      try {
        flushed = await flushSpool(dir, sender, { onItem });
      } catch (err) {
        const code = /** @type {NodeJS.ErrnoException} */ (err).code;
        if (code === 'ENOTDIR') throw new UsageError(`flush: ${dir} is not a directory`);
        throw err;
      }
      const count = (/** @type {FlushItem['outcome'][]} */ ...o) => flushed.items.filter((i) => o.includes(i.outcome)).length;
      const summary = { delivered: count('delivered'), refused: count('refused'), invalid: count('invalid'), kept: count('gave_up', 'skipped') };
      if (json) {
        const items = flushed.items.map((i) => ({
          file: i.file,
          eventId: i.eventId,
          outcome: i.outcome,
          removed: i.removed,
          ...(i.error ? { error: i.error } : {}),
          ...(i.result ? resultJson(i.result, {}) : {}),
        }));
        io.stdout.write(`${JSON.stringify({ dir, ...summary, items })}\n`);
      } else {
        errLines([
          `fluxdesk-send: flushed ${dir}: ${summary.delivered} delivered, ${summary.refused} refused, ${summary.invalid} unreadable, ${summary.kept} still spooled`,
        ]);
      }
      return summary.kept > 0 ? EXIT.gave_up : summary.refused + summary.invalid > 0 ? EXIT.refused : EXIT.delivered;
    }

    if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
    const fields = await eventFields(flags, io);
    /** @type {InboundEvent} */
    let event;
    /** @type {CommandOutcome | undefined} */
    let outcome;
    if (command === 'run') {
      if (flags.severity !== undefined || flags.status !== undefined) {
        throw new UsageError('run sets severity and status from the exit code (success/resolved on 0, critical/firing otherwise)');
      }
      if (commandArgv.length === 0) throw new UsageError('run needs a command after --: fluxdesk-send run --id ID --type TYPE -- COMMAND [ARGS...]');
      const conn = connection(flags, io); // before running: a usage error must not cost a run
      outcome = await runCommand(commandArgv);
      if (!json) {
        const how = outcome.error ? `could not start (${outcome.error})` : outcome.signal ? `was killed by ${outcome.signal}` : `exited ${outcome.exitCode}`;
        errLines([`fluxdesk-send: command ${how} after ${duration(outcome.durationMs)}`]);
      }
      event = commandEvent(fields, commandArgv, outcome);
      return await publish(event, conn, flags, io, json, outcome);
    }
    if (fields.title === undefined) throw new UsageError('--title is required');
    event = /** @type {InboundEvent} */ ({ severity: 'info', ...fields });
    return await publish(event, connection(flags, io), flags, io, json, undefined);
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr.write(`fluxdesk-send: ${err.message}\nRun fluxdesk-send --help for usage.\n`);
      return EXIT.usage;
    }
    io.stderr.write(`fluxdesk-send: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    return EXIT.software;
  }
}

/**
 * @param {InboundEvent} event
 * @param {ReturnType<typeof connection>} conn
 * @param {Flags} flags
 * @param {Io} io
 * @param {boolean} json
 * @param {CommandOutcome | undefined} command
 */
async function publish(event, conn, flags, io, json, command) {
  /** @type {Extra} */
  const extra = { spoolDir: flags.spool };
  const sender = createSender({
    ...conn,
    onDeadLetter: async (ev) => {
      if (flags.spool === undefined) return;
      try {
        extra.spooled = await writeSpoolFile(flags.spool, ev);
      } catch (err) {
        extra.spoolError = err instanceof Error ? err.message : String(err);
      }
    },
  });
  const result = await sender.send(event);
  if (json) {
    io.stdout.write(`${JSON.stringify({ ...resultJson(result, extra), ...(command ? { command } : {}) })}\n`);
  } else {
    const [out, err] = resultLines(result, extra);
    if (out.length > 0) io.stdout.write(`${out.join('\n')}\n`);
    if (err.length > 0) io.stderr.write(`${err.join('\n')}\n`);
  }
  return EXIT[result.outcome];
}

// The spool: what could not be delivered, one `<event_id>.json` per event (the request body exactly,
// so `curl -d @file` would send it too), written atomically so a crash never leaves half a file under
// the real name. A later event with the same id replaces the file: the service would keep only the
// latest state of that id anyway (dedup updates the same row).
import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { checkEvent } from './sender.js';

/** @typedef {import('../index.js').InboundEvent} InboundEvent */
/** @typedef {import('../index.js').Sender} Sender */
/** @typedef {import('../index.js').FlushItem} FlushItem */
/** @typedef {import('../index.js').FlushResult} FlushResult */

// Only spool files proper: temporary files start with a dot and end in .tmp.
const SPOOL_FILE = /^[a-zA-Z0-9_-]{1,120}\.json$/;

/**
 * @param {string} dir
 * @param {InboundEvent} event
 * @returns {Promise<string>}
 */
export async function writeSpoolFile(dir, event) {
  checkEvent(event);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const final = path.join(dir, `${event.event_id}.json`);
  const tmp = path.join(dir, `.${event.event_id}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  const fh = await open(tmp, 'wx', 0o600);
  try {
    await fh.writeFile(`${JSON.stringify(event)}\n`);
    await fh.sync();
  } finally {
    await fh.close();
  }
  try {
    await rename(tmp, final);
  } catch (err) {
    await unlink(tmp).catch(() => {});
    throw err;
  }
  return final;
}

/**
 * @param {string} dir
 * @param {Sender} sender
 * @param {{ onItem?: (item: FlushItem) => void }} [options]
 * @returns {Promise<FlushResult>}
 */
export async function flushSpool(dir, sender, options = {}) {
  // A spool that was never written to is simply empty (a CI job may flush before every send).
  const all = await readdir(dir).catch((err) => {
    if (err?.code === 'ENOENT') return [];
    throw err;
  });
  const names = all.filter((n) => SPOOL_FILE.test(n));
  const dated = await Promise.all(names.map(async (name) => ({ name, mtimeMs: (await stat(path.join(dir, name))).mtimeMs })));
  dated.sort((a, b) => a.mtimeMs - b.mtimeMs || (a.name < b.name ? -1 : 1));

  /** @type {FlushItem[]} */
  const items = [];
  /** @param {FlushItem} item */
  const report = (item) => {
    items.push(item);
    options.onItem?.(item);
  };
  let gaveUp = false;
  for (const { name } of dated) {
    const file = path.join(dir, name);
    if (gaveUp) {
      report({ file, eventId: name.slice(0, -'.json'.length), outcome: 'skipped', removed: false });
      continue;
    }
    let text;
    /** @type {InboundEvent} */
    let event;
    try {
      text = await readFile(file, 'utf8');
      const parsed = JSON.parse(text);
      checkEvent(parsed);
      event = parsed;
    } catch (err) {
      // Not ours to delete: it never reached the service, and a person may want to look at it.
      report({ file, outcome: 'invalid', removed: false, error: err instanceof Error ? err.message : String(err) });
      continue;
    }
    const result = await sender.send(event);
    if (result.outcome === 'gave_up') {
      gaveUp = true;
      report({ file, eventId: event.event_id, outcome: 'gave_up', removed: false, result });
      continue;
    }
    // Delivered, or refused (resending the same body cannot help). Removed only if it is still the
    // version just sent: a newer event with the same id may have been spooled meanwhile.
    const now = await readFile(file, 'utf8').catch(() => undefined);
    const removed =
      now === text &&
      (await unlink(file).then(
        () => true,
        () => false,
      ));
    report({ file, eventId: event.event_id, outcome: result.outcome, removed, result });
  }
  return { dir, items };
}

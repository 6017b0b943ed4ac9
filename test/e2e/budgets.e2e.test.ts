// The issue's budgets, measured in a real browser and printed (test-artifacts/e2e/budgets.txt):
// JS shipped for the inbox route (gzip), an inbox of 500 items interactive after load, and a
// published event visible in the open 500-item inbox. Timings are reported, and asserted only
// against generous bounds (5 s): a timed assertion on a shared 2-core machine is a flaky test. The
// JS size is deterministic and asserted at the issue's 150 KB.
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportBudget, signIn, useBrowser } from '../helpers/browser.js';
import { event, newPersonalToken, publish, startHarness, type Harness, type TestToken } from '../helpers/harness.js';

const ITEMS = 500;
/** Events per minute per token (SPEC Limits): the clock moves a minute after each batch. */
const PER_MINUTE = 60;

let h: Harness;
let t: TestToken;
beforeAll(async () => {
  h = await startHarness();
  t = await newPersonalToken(h, { dailyLimit: 1000 });
  const started = Date.now();
  for (let i = 0; i < ITEMS; ) {
    const batch = Math.min(PER_MINUTE, ITEMS - i);
    const n0 = i;
    // Six at a time, in order of creation within the batch.
    for (let k = 0; k < batch; k += 6) {
      const statuses = await Promise.all(
        Array.from({ length: Math.min(6, batch - k) }, (_, j) =>
          publish(
            h,
            t.token,
            // Each of its own event type: 500 rows, none a repeat of another (the Inbox groups repeats).
            event(h, {
              title: `Item ${String(n0 + k + j + 1).padStart(3, '0')}`,
              severity: (n0 + k + j) % 7 === 0 ? 'critical' : 'info',
              event_type: `personal.budget.t${n0 + k + j + 1}`,
            }),
          ).then((r) => r.status),
        ),
      );
      expect(statuses.every((s) => s === 202)).toBe(true);
    }
    i += batch;
    h.clock.advance(PER_MINUTE * 1000 + 1);
  }
  console.log(`[budgets] published ${ITEMS} events in ${Date.now() - started} ms`);
  // 500 is also the inbox's per-user daily cap (SPEC Limits): the live publishes below happen the next day.
  h.clock.advance(24 * 3600_000);
}, 120_000);
afterAll(async () => {
  await h?.close();
});

const b = useBrowser(() => h.baseUrl);

describe('budgets (browser)', () => {
  it(`an inbox of ${ITEMS} items: JS shipped for the route (gzip), time to interactive after load, a publish visible in the open list`, async () => {
    const page = b.page;
    await signIn(h, page, t.user);

    // Every script the inbox route loads, gzip-compressed as a server would send it.
    const scripts = new Map<string, Promise<number>>();
    page.on('response', (res) => {
      if (res.request().resourceType() !== 'script') return;
      scripts.set(
        res.url(),
        res.body().then(
          (body) => gzipSync(body, { level: 9 }).length,
          () => 0,
        ),
      );
    });

    // In the page, from navigation start: the list holds its rows (the whole first page the app
    // shows without a user action), the total says 500, and a button takes the keyboard focus.
    // Three loads: the first (cold caches) and two reloads.
    const interactive = async () => {
      const handle = await page.waitForFunction(
        (total) => {
          const list = document.querySelector('ul[aria-label="Inbox"]');
          if (!list || list.children.length === 0) return false;
          if (!document.body.textContent?.includes(`${total} notifications`)) return false;
          const button = [...document.querySelectorAll('button')].find((x) => x.textContent?.trim() === 'Mark all read') as HTMLButtonElement | undefined;
          if (!button || button.disabled) return false;
          button.focus();
          if (document.activeElement !== button) return false;
          const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined;
          return { at: performance.now(), rows: list.children.length, load: nav?.loadEventEnd ?? 0 };
        },
        ITEMS,
        { polling: 'raf', timeout: 10_000 },
      );
      return (await handle.jsonValue()) as { at: number; rows: number; load: number };
    };
    const runs: { at: number; rows: number; load: number }[] = [];
    await page.goto('/', { waitUntil: 'commit' });
    runs.push(await interactive());
    for (let i = 0; i < 2; i++) {
      await page.reload({ waitUntil: 'commit' });
      runs.push(await interactive());
    }
    for (const [i, r] of runs.entries())
      reportBudget(
        `inbox of ${ITEMS} (${i === 0 ? 'first load' : `reload ${i}`}): ${r.rows} rows rendered and a button focused, after navigation start ${Math.round(r.at)} ms; after the load event`,
        r.at - r.load,
      );
    for (const r of runs) expect(r.at).toBeLessThan(5000);

    // JS for the inbox route (the integrations page is its own chunk, loaded only there).
    const sizes = await Promise.all(scripts.values());
    const jsGzip = sizes.reduce((a, n) => a + n, 0);
    reportBudget(`JS shipped for the inbox route, gzip (${scripts.size} files)`, jsGzip / 1024, 'KB');
    expect(scripts.size).toBeGreaterThan(0);
    expect(jsGzip).toBeLessThanOrEqual(150 * 1024);

    // The first page is the whole inbox of 500 (web/src/inbox-page.tsx PAGE): every row is in the list.
    const list = page.getByRole('list', { name: 'Inbox', exact: true });
    await expect(list.getByRole('listitem')).toHaveCount(ITEMS);

    // A publish while the 500-row list is open: visible in the DOM within (measured) ms.
    await page.getByText('Live', { exact: true }).waitFor();
    const latencies: number[] = [];
    for (let i = 0; i < 5; i++) {
      const title = `Live ${i} ${Date.now().toString(36)}`;
      await page.evaluate((want) => {
        const w = window as any;
        w.__e2eSeenAt = 0;
        const obs = new MutationObserver(() => {
          for (const a of document.querySelectorAll('ul[aria-label="Inbox"] a'))
            if (a.textContent === want) {
              w.__e2eSeenAt = Date.now();
              obs.disconnect();
            }
        });
        obs.observe(document.body, { subtree: true, childList: true, characterData: true });
      }, title);
      const sentAt = Date.now();
      const res = await publish(h, t.token, event(h, { title }));
      expect(res.status, res.text).toBe(202);
      await expect.poll(() => page.evaluate(() => (window as any).__e2eSeenAt as number), { timeout: 5000, interval: 20 }).toBeGreaterThan(0);
      latencies.push((await page.evaluate(() => (window as any).__e2eSeenAt as number)) - sentAt);
    }
    latencies.sort((x, y) => x - y);
    reportBudget(`publish -> visible with ${ITEMS} rows open: median of 5`, latencies[2]!);
    reportBudget(`publish -> visible with ${ITEMS} rows open: max of 5`, latencies[4]!);
    expect(latencies[4]).toBeLessThan(5000);
  });
});

// The service worker's click on a notification (web/public/sw.js, `notificationclick`): a headless
// browser cannot click a system notification (no DevTools method does it, and a synthetic event
// carries no user activation, so focus() and openWindow() refuse). The script runs here in a
// node:vm context whose `self` stands in for the worker's global: the handler is the real code,
// the windows it sees are stand-ins that record what it asked of them.
//  - a window already at the item's page is focused (no second tab);
//  - else an open window of the app is focused and navigated there;
//  - else a new window opens at the page;
//  - a URL of another origin in the payload never leaves the app's origin.
import { readFileSync } from 'node:fs';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';

const SW = readFileSync(new URL('../../web/public/sw.js', import.meta.url), 'utf8');
const ORIGIN = 'https://fluxdesk.example.com';

interface FakeWindow {
  url: string;
  focused: boolean;
  navigatedTo?: string;
  focus(): Promise<FakeWindow>;
  navigate(url: string): Promise<FakeWindow>;
}

function fakeWindow(url: string): FakeWindow {
  const w: FakeWindow = {
    url,
    focused: false,
    async focus() {
      w.focused = true;
      return w;
    },
    async navigate(to: string) {
      w.navigatedTo = to;
      return w;
    },
  };
  return w;
}

/** Loads sw.js against a fake worker global and clicks a notification whose data.url is `url`. */
async function click(url: string | undefined, windows: FakeWindow[]): Promise<{ opened: string[]; closed: boolean; matchAllOptions: unknown }> {
  const handlers = new Map<string, (event: unknown) => void>();
  const opened: string[] = [];
  let matchAllOptions: unknown;
  const self = {
    location: new URL(`${ORIGIN}/sw.js`),
    addEventListener: (type: string, fn: (event: unknown) => void) => handlers.set(type, fn),
    skipWaiting: () => {},
    registration: {},
    clients: {
      claim: async () => {},
      matchAll: async (options: unknown) => {
        matchAllOptions = options;
        return windows;
      },
      openWindow: async (to: string) => {
        opened.push(to);
        return null;
      },
    },
  };
  vm.runInNewContext(SW, { self, URL });
  let closed = false;
  let done: Promise<unknown> = Promise.resolve();
  handlers.get('notificationclick')!({
    notification: {
      data: url === undefined ? undefined : { url },
      close: () => {
        closed = true;
      },
    },
    waitUntil: (p: Promise<unknown>) => {
      done = p;
    },
  });
  await done;
  return { opened, closed, matchAllOptions };
}

describe('sw.js notificationclick', () => {
  it('focuses a window already showing the item, and opens nothing', async () => {
    const inbox = fakeWindow(`${ORIGIN}/`);
    const item = fakeWindow(`${ORIGIN}/inbox/n1`);
    const r = await click(`${ORIGIN}/inbox/n1`, [inbox, item]);
    expect(r.closed).toBe(true);
    expect(item.focused).toBe(true);
    expect(inbox.focused).toBe(false);
    expect(inbox.navigatedTo).toBeUndefined();
    expect(r.opened).toEqual([]);
    expect(r.matchAllOptions).toEqual({ type: 'window', includeUncontrolled: true });
  });

  it('otherwise focuses an open window of the app and navigates it to the item', async () => {
    const inbox = fakeWindow(`${ORIGIN}/`);
    const r = await click('/inbox/n2', [inbox]);
    expect(inbox.focused).toBe(true);
    expect(inbox.navigatedTo).toBe(`${ORIGIN}/inbox/n2`);
    expect(r.opened).toEqual([]);
  });

  it('opens a new window at the item when no window of the app is open', async () => {
    const r = await click(`${ORIGIN}/inbox/n3`, []);
    expect(r.opened).toEqual([`${ORIGIN}/inbox/n3`]);
  });

  it('never leaves the origin: a payload URL of another site opens the app instead; no URL opens the inbox', async () => {
    expect((await click('https://evil.example.net/inbox/n4', [])).opened).toEqual([ORIGIN]);
    expect((await click('javascript:alert(1)', [])).opened).toEqual([ORIGIN]);
    expect((await click(undefined, [])).opened).toEqual([`${ORIGIN}/`]);
  });
});

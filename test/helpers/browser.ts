// End-to-end browser tests: headless system Chromium through playwright-core (never a
// downloaded browser), one browser per test file, a fresh context (cookies, storage) per test.
// Every test leaves a screenshot of each of its pages in test-artifacts/e2e/<file>/<test>.png
// (<test>.FAILED.png when it failed) and the pages' console and page errors in <test>.log.
//
//   const b = useBrowser(() => h.baseUrl);   // at the top level of the test file, after the harness hooks
//   it('...', async () => { await signIn(h, b.page, user); await b.page.goto('/'); ... });
import { mkdirSync, rmSync, writeFileSync, appendFileSync } from 'node:fs';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, expect, inject } from 'vitest';
import { parseCommand } from '../../src/transports/cli/commands.js';
import { operator, type Harness, type TestUser } from './harness.js';
import { buildWebAssets } from './web-build-global.js';

// ---- web-first assertions on locators (vitest's expect has none; @playwright/test is not used) ----
// Each retries until it holds or ASSERT_TIMEOUT_MS passes (`.not` waits for the opposite), so
// tests wait on roles and names instead of sleeping:
//   await expect(page.getByRole('status')).toContainText('Callback answered 202');

export const ASSERT_TIMEOUT_MS = 10_000;

declare module 'vitest' {
  interface Matchers<R extends void | Promise<void> = void | Promise<void>, T = unknown> {
    /** Locator: visible. */
    toBeVisible(): Promise<void>;
    /** Locator: disabled. */
    toBeDisabled(): Promise<void>;
    /** Locator (a checkbox or radio): checked (`.not`: unchecked). */
    toBeChecked(): Promise<void>;
    /** Locator: matches exactly n elements. */
    toHaveCount(n: number): Promise<void>;
    /** Locator (one element): its text, whitespace collapsed, equals the string or matches the RegExp. */
    toHaveText(expected: string | RegExp): Promise<void>;
    /** Locator (all its elements' texts joined): contains the string or matches the RegExp. */
    toContainText(expected: string | RegExp): Promise<void>;
    /** Locator (one element): the attribute equals the value. */
    toHaveAttribute(name: string, value: string): Promise<void>;
    /** Locator (one input or select): its value. */
    toHaveValue(value: string): Promise<void>;
  }
}

const QUICK = { timeout: 1_000 };
const norm = (s: string) => s.replace(/\s+/g, ' ').trim();
const textMatches = (text: string, e: string | RegExp, whole: boolean) => (typeof e === 'string' ? (whole ? text === e : text.includes(e)) : e.test(text));

type Probe = () => Promise<{ pass: boolean; actual: unknown }>;
async function retry(isNot: boolean, probe: Probe): Promise<{ pass: boolean; actual: unknown }> {
  const deadline = Date.now() + ASSERT_TIMEOUT_MS;
  for (;;) {
    let r: { pass: boolean; actual: unknown };
    try {
      r = await probe();
    } catch (e) {
      r = { pass: false, actual: `(${(e as Error).message.split('\n')[0]})` };
    }
    if (r.pass !== isNot || Date.now() > deadline) return r;
    // A retry interval of a polling assertion, not a wait for time to pass.
    await new Promise((res) => setTimeout(res, 50));
  }
}

function locatorMatcher<A extends unknown[]>(name: string, describe: (...args: A) => string, probe: (l: Locator, ...args: A) => ReturnType<Probe>) {
  return async function (this: { isNot: boolean }, received: Locator, ...args: A) {
    const isNot = this.isNot === true;
    const r = await retry(isNot, () => probe(received, ...args));
    return {
      pass: r.pass,
      message: () =>
        `expected ${received} ${isNot ? 'not ' : ''}${name} ${describe(...args)} (within ${ASSERT_TIMEOUT_MS} ms); got ${JSON.stringify(r.actual)}`,
    };
  };
}

expect.extend({
  toBeVisible: locatorMatcher(
    'to be visible',
    () => '',
    async (l) => ({ pass: await l.isVisible(), actual: `${await l.count()} matching` }),
  ),
  toBeDisabled: locatorMatcher(
    'to be disabled',
    () => '',
    async (l) => {
      const v = await l.isDisabled(QUICK);
      return { pass: v, actual: v ? 'disabled' : 'enabled' };
    },
  ),
  toBeChecked: locatorMatcher(
    'to be checked',
    () => '',
    async (l) => {
      const v = await l.isChecked(QUICK);
      return { pass: v, actual: v ? 'checked' : 'unchecked' };
    },
  ),
  toHaveCount: locatorMatcher(
    'to have count',
    (n: number) => String(n),
    async (l, n: number) => {
      const c = await l.count();
      return { pass: c === n, actual: c };
    },
  ),
  toHaveText: locatorMatcher(
    'to have text',
    (e: string | RegExp) => String(e),
    async (l, e: string | RegExp) => {
      const t = norm((await l.textContent(QUICK)) ?? '');
      return { pass: textMatches(t, e, true), actual: t };
    },
  ),
  toContainText: locatorMatcher(
    'to contain text',
    (e: string | RegExp) => String(e),
    async (l, e: string | RegExp) => {
      const t = norm((await l.allInnerTexts()).join(' '));
      return { pass: t !== '' && textMatches(t, e, false), actual: t.slice(0, 500) };
    },
  ),
  toHaveAttribute: locatorMatcher(
    'to have attribute',
    (n: string, v: string) => `${n}=${JSON.stringify(v)}`,
    async (l, n: string, v: string) => {
      const a = await l.getAttribute(n, QUICK);
      return { pass: a === v, actual: a };
    },
  ),
  toHaveValue: locatorMatcher(
    'to have value',
    (v: string) => JSON.stringify(v),
    async (l, v: string) => {
      const a = await l.inputValue(QUICK);
      return { pass: a === v, actual: a };
    },
  ),
});

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const ARTIFACTS_DIR = path.join(process.cwd(), 'test-artifacts', 'e2e');

export interface E2E {
  readonly browser: Browser;
  /** The current test's context (fresh per test). */
  readonly context: BrowserContext;
  /** The current test's first page. */
  readonly page: Page;
  /** Another isolated context (a second person, or no session), closed with the test. */
  newContext(): Promise<BrowserContext>;
  /** Console messages and page errors of the current test's pages so far. */
  readonly log: string[];
  /** Where this file's artifacts go. */
  readonly artifactsDir: string;
}

let webBuildChecked = false;
/** The web assets are built (by the globalSetup web-build-global.ts, or here when it did not run). */
function ensureWebBuild(): void {
  if (webBuildChecked) return;
  const provided = inject('webBuild') as string | undefined;
  const outcome = provided ?? buildWebAssets();
  if (outcome !== 'ok') throw new Error(outcome);
  webBuildChecked = true;
}

const slug = (s: string) =>
  s
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 120);

/** Registers the browser hooks of a test file; `baseUrl` is read when each test's context opens. */
export function useBrowser(baseUrl: () => string): E2E {
  let browser: Browser | undefined;
  let context: BrowserContext | undefined;
  let page: Page | undefined;
  let extra: BrowserContext[] = [];
  let log: string[] = [];
  let dir = ARTIFACTS_DIR;

  const watch = (ctx: BrowserContext, tag: string) => {
    ctx.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') log.push(`[${tag} console.${m.type()}] ${m.text()}`);
    });
    ctx.on('weberror', (e) => log.push(`[${tag} pageerror] ${e.error().message}`));
  };
  const open = async (tag: string) => {
    if (!browser) throw new Error('useBrowser: the browser did not start (see beforeAll)');
    const ctx = await browser.newContext({ baseURL: baseUrl(), viewport: { width: 1280, height: 900 } });
    ctx.setDefaultTimeout(10_000);
    watch(ctx, tag);
    return ctx;
  };

  beforeAll(async () => {
    const file = expect.getState().testPath ?? 'unknown.test.ts';
    dir = path.join(ARTIFACTS_DIR, slug(path.basename(file).replace(/\.test\.ts$/, '')));
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    ensureWebBuild();
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await browser?.close();
  });
  beforeEach(async () => {
    log = [];
    extra = [];
    context = await open('main');
    page = await context.newPage();
  });
  afterEach(async (ctx) => {
    const failed = ctx.task.result?.state === 'fail' || (ctx.task.result?.errors?.length ?? 0) > 0;
    const name = slug(ctx.task.name);
    const pages = [context, ...extra].flatMap((c) => c?.pages() ?? []);
    let n = 0;
    for (const p of pages) {
      const file = `${name}${n ? `-${n + 1}` : ''}${failed ? '.FAILED' : ''}.png`;
      n++;
      try {
        await p.screenshot({ path: path.join(dir, file), fullPage: true, timeout: 5_000 });
      } catch {
        // A very long page (hundreds of rows) may not render whole in time: the viewport then.
        await p.screenshot({ path: path.join(dir, file), timeout: 5_000 }).catch((e: Error) => log.push(`[screenshot ${file}] ${e.message}`));
      }
    }
    if (log.length) writeFileSync(path.join(dir, `${name}.log`), `${log.join('\n')}\n`);
    for (const c of [context, ...extra]) await c?.close().catch(() => {});
    context = undefined;
    page = undefined;
  });

  return {
    get browser() {
      if (!browser) throw new Error('useBrowser: no browser');
      return browser;
    },
    get context() {
      if (!context) throw new Error('useBrowser: no context (outside a test)');
      return context;
    },
    get page() {
      if (!page) throw new Error('useBrowser: no page (outside a test)');
      return page;
    },
    async newContext() {
      const c = await open(`ctx${extra.length + 2}`);
      extra.push(c);
      return c;
    },
    get log() {
      return log;
    },
    get artifactsDir() {
      return dir;
    },
  };
}

/** A one-time sign-in link: the operation `fluxdesk login-link --email E` runs, in-process. */
export async function loginLink(h: Harness, email: string): Promise<{ url: string; expiresAt: string }> {
  const cmd = parseCommand(['login-link', '--email', email]);
  if (cmd.input === undefined) throw new Error('login-link parsed as migrate');
  return operator(h, cmd.op, cmd.input);
}

/** Signs `user` in through a fresh login link (page "Sign in" -> button "Sign in"); lands on `/` or the link's next. */
export async function signIn(h: Harness, page: Page, user: Pick<TestUser, 'email'>): Promise<void> {
  const { url } = await loginLink(h, user.email);
  await page.goto(url);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForURL((u) => !u.pathname.startsWith('/auth/'));
}

/** The session cookie of a context (either name of the contract), or undefined. */
export async function sessionCookie(context: BrowserContext): Promise<{ name: string; value: string; httpOnly: boolean; secure: boolean } | undefined> {
  const cookies = await context.cookies();
  return cookies.find((c) => c.name === 'fluxdesk_session' || c.name === '__Host-fluxdesk_session');
}

/** axe-core over the page: no serious or critical violation (the full results are kept as an artifact). */
export async function expectAxeClean(e2e: E2E, label: string): Promise<void> {
  const results = await new AxeBuilder({ page: e2e.page }).analyze();
  writeFileSync(path.join(e2e.artifactsDir, `axe-${slug(label)}.json`), JSON.stringify(results.violations, null, 2));
  const bad = results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
  expect(bad, `axe on ${label}`).toEqual([]);
}

/** Content-Security-Policy violations the pages reported (Chromium logs them to the console). */
export function cspViolations(e2e: E2E): string[] {
  return e2e.log.filter((l) => /Content Security Policy/i.test(l));
}

/** Prints a measured figure and appends it to test-artifacts/e2e/budgets.txt (for the issue's note). */
export function reportBudget(name: string, value: number, unit = 'ms'): void {
  const line = `${new Date().toISOString()} ${name}: ${Math.round(value * 10) / 10} ${unit}`;
  console.log(`[budget] ${line}`);
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  appendFileSync(path.join(ARTIFACTS_DIR, 'budgets.txt'), `${line}\n`);
}

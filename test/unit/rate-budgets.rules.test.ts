// The rate budgets (SPEC Limits; docs/web-sign-in.md "Limits"): the spec's numbers as literals, the
// stored window keys an upgrade must keep, which budget each kind of caller counts against, and
// that every operation names a budget its callers have.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Operation } from '../../src/domain/context.js';
import { BUDGET_NAMES, budgetFor, budgetWindow, describeBudget, RATE_BUDGETS, windowTag, type CallerKind } from '../../src/domain/rate-budgets.rules.js';

const MINUTE = 60_000;
const DAY = 86_400_000;

describe('the budget table', () => {
  it("holds the spec's numbers, window keys and metrics labels", () => {
    const seen = Object.fromEntries(
      BUDGET_NAMES.map((n) => [n, { appliesTo: RATE_BUDGETS[n].appliesTo, label: RATE_BUDGETS[n].metricsLabel, windows: RATE_BUDGETS[n].windows }]),
    );
    expect(seen).toEqual({
      publish: { appliesTo: ['inbound_token'], label: 'inbound_publish', windows: [{ limit: 60, windowMs: MINUTE, per: 'minute', suffix: '' }] },
      request: { appliesTo: ['inbound_token'], label: 'inbound_requests', windows: [{ limit: 600, windowMs: MINUTE, per: 'minute', suffix: ':req' }] },
      agent: {
        appliesTo: ['agent_token'],
        label: 'agent',
        windows: [
          { limit: 60, windowMs: MINUTE, per: 'minute', suffix: '' },
          { limit: 5000, windowMs: DAY, per: 'day', suffix: ':day' },
        ],
      },
      session: { appliesTo: ['web_session'], label: 'agent', windows: [{ limit: 300, windowMs: MINUTE, per: 'minute', suffix: ':web' }] },
      sign_in_link: { appliesTo: ['client_address'], label: 'sign_in_link', windows: [{ limit: 20, windowMs: MINUTE, per: 'minute', suffix: '' }] },
      sign_in_oidc_start: {
        appliesTo: ['client_address'],
        label: 'sign_in_oidc_start',
        windows: [{ limit: 120, windowMs: MINUTE, per: 'minute', suffix: '' }],
      },
      sign_in_oidc_callback: {
        appliesTo: ['client_address'],
        label: 'sign_in_oidc_callback',
        windows: [{ limit: 120, windowMs: MINUTE, per: 'minute', suffix: '' }],
      },
    });
  });

  it("gives each budget at most one window of each unit, and each of a caller's windows a key of its own", () => {
    for (const name of BUDGET_NAMES) {
      const pers = RATE_BUDGETS[name].windows.map((w) => w.per);
      expect(new Set(pers).size, name).toBe(pers.length);
    }
    for (const kind of ['inbound_token', 'agent_token', 'web_session'] as const) {
      const suffixes = BUDGET_NAMES.filter((n) => (RATE_BUDGETS[n].appliesTo as readonly CallerKind[]).includes(kind)).flatMap((n) =>
        RATE_BUDGETS[n].windows.map((w) => w.suffix),
      );
      expect(new Set(suffixes).size, kind).toBe(suffixes.length);
    }
  });

  it('keys the windows as stored before: rl:{tok:<id>}<suffix> per token or session, rl:{addr:<budget>:<address>} per address', () => {
    expect(windowTag('publish', 'T1')).toBe('tok:T1');
    expect(windowTag('request', 'T1')).toBe('tok:T1');
    expect(windowTag('agent', 'T2')).toBe('tok:T2');
    expect(windowTag('session', 'S1')).toBe('tok:S1');
    expect(windowTag('sign_in_link', '10.0.0.1')).toBe('addr:sign_in_link:10.0.0.1');
    expect(windowTag('sign_in_oidc_start', '10.0.0.1')).toBe('addr:sign_in_oidc_start:10.0.0.1');
    expect(windowTag('sign_in_oidc_callback', '2001:db8:0:1::/64')).toBe('addr:sign_in_oidc_callback:2001:db8:0:1::/64');
  });

  it('describes a budget in prose and finds a window by its unit', () => {
    expect(describeBudget('agent')).toBe('60 per minute and 5000 per day');
    expect(describeBudget('request')).toBe('600 per minute');
    expect(budgetWindow('agent', 'day').limit).toBe(5000);
    expect(() => budgetWindow('publish', 'day')).toThrow(/no window per day/);
  });
});

describe('budgetFor', () => {
  it('counts a call against the budget its operation names, a web session against its own', () => {
    expect(budgetFor('publish', 'inbound_token')).toBe('publish');
    expect(budgetFor('request', 'inbound_token')).toBe('request');
    expect(budgetFor('agent', 'agent_token')).toBe('agent');
    expect(budgetFor('agent', 'web_session')).toBe('session');
  });

  it('refuses a budget that does not apply to the caller', () => {
    expect(() => budgetFor('publish', 'agent_token')).toThrow(/no rate budget/);
    expect(() => budgetFor('request', 'web_session')).toThrow(/no rate budget/);
    expect(() => budgetFor('agent', 'inbound_token')).toThrow(/no rate budget/);
  });
});

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

describe('every operation', () => {
  it('names a budget that applies to every caller its authentication accepts', async () => {
    const ops = new Set<Operation<any, any, any>>();
    for (const file of sources(join(import.meta.dirname, '../../src/domain'))) {
      for (const v of Object.values(await import(file))) {
        const o = v as Partial<Operation<any, any, any>> | null;
        if (o && typeof o === 'object' && 'auth' in o && 'handler' in o && 'budget' in o) ops.add(o as Operation<any, any, any>);
      }
    }
    expect(ops.size).toBeGreaterThan(100);
    const misfits: string[] = [];
    for (const op of ops) {
      if (op.budget === null) continue;
      const callers: CallerKind[] = op.auth.kind === 'inbound' ? ['inbound_token'] : op.auth.kind === 'agent' ? ['agent_token', 'web_session'] : [];
      if (callers.length === 0) misfits.push(`${op.name}: ${op.auth.kind} operations are not counted`);
      for (const c of callers) {
        try {
          budgetFor(op.budget, c);
        } catch {
          misfits.push(`${op.name}: '${op.budget}' does not count ${c} callers`);
        }
      }
    }
    expect(misfits).toEqual([]);
  });
});

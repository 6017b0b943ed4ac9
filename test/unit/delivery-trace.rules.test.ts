// buildTrace (delivery-trace.rules.ts): order, what is derived where nothing was recorded, and what
// never shows. The integration tests (test/integration/rest-v1/events.trace.test.ts) cover the rows.
import { describe, expect, it } from 'vitest';
import { buildTrace, type TraceFacts } from '../../src/domain/events/delivery-trace.rules.js';

const T0 = '2026-11-30T10:00:00.000Z';
const at = (s: number) => new Date(Date.parse(T0) + s * 1000).toISOString();

function facts(over: Partial<TraceFacts> = {}, delivery: Partial<TraceFacts['delivery']> = {}): TraceFacts {
  return {
    delivery: { created_at: T0, severity: 'warn', fire_count: 1, resolved_at: null, external_status: null, external_status_at: null, ...delivery },
    degraded: false,
    refires: [],
    inboxRowAt: T0,
    moderation: null,
    supplements: [],
    nudgeSteps: [],
    deadNudges: [],
    clicks: [],
    settings: { threshold: 'all', pushSeverities: ['critical', 'warn'], chatOpen: true, pushOpen: true },
    ...over,
  };
}

describe('buildTrace', () => {
  it('orders by time; steps of one instant keep their order (accepted first)', () => {
    const steps = buildTrace(
      facts({
        refires: [at(5)],
        supplements: [at(2)],
        nudgeSteps: [{ at: T0, step: 'nudge_sent', channel: 'chat', detail: { attempt: 1 } }],
      }),
    );
    expect(steps.map((s) => s.step)).toEqual(['accepted', 'inbox_row', 'nudge_sent', 'supplemented', 'refired']);
  });

  it('open channels and nothing recorded yet (not dispatched): no hold is made up', () => {
    expect(buildTrace(facts()).map((s) => s.step)).toEqual(['accepted', 'inbox_row']);
  });

  it('a terminal external status at the first arrival nudges nobody and gives no reason', () => {
    const steps = buildTrace(
      facts({ settings: { threshold: 'all', pushSeverities: [], chatOpen: false, pushOpen: false } }, { external_status: 'resolved', external_status_at: T0 }),
    );
    expect(steps.map((s) => s.step)).toEqual(['accepted', 'inbox_row']);
  });

  it('a dead nudge recorded before the trace existed (nudge_failures) shows; one the trace recorded is not doubled', () => {
    const old = buildTrace(facts({ deadNudges: [{ channel: 'chat', attempts: 3, last_error: 'chat: HTTP 502', failed_at: at(9) }] }));
    expect(old.at(-1)).toEqual({ at: at(9), step: 'nudge_dead', channel: 'chat', attempt: 3, status: 502 });
    const both = buildTrace(
      facts({
        nudgeSteps: [{ at: at(9), step: 'nudge_dead', channel: 'chat', detail: { attempt: 3, error: 'timeout' } }],
        deadNudges: [{ channel: 'chat', attempts: 3, last_error: 'chat: timeout', failed_at: at(9) }],
      }),
    );
    expect(both.filter((s) => s.step === 'nudge_dead')).toEqual([{ at: at(9), step: 'nudge_dead', channel: 'chat', attempt: 3, error: 'timeout' }]);
  });

  it('a held moderation delivery over the token limit: degraded token_daily, no nudge hold', () => {
    const steps = buildTrace(facts({ degraded: true, inboxRowAt: null, moderation: { created_at: T0, forwarded_at: null } }));
    expect(steps.map(({ at: _at, ...s }) => s)).toEqual([{ step: 'accepted' }, { step: 'held_for_moderation' }, { step: 'degraded', limit: 'token_daily' }]);
  });

  it('an action click without an answer carries the error word, never a status', () => {
    const steps = buildTrace(facts({ clicks: [{ at: at(3), summary: { action_index: 1, action_label: 'Retry', status: 0, ok: false, error: 'timeout' } }] }));
    expect(steps.at(-1)).toEqual({ at: at(3), step: 'action_clicked', actionIndex: 1, actionLabel: 'Retry', error: 'timeout' });
  });
});

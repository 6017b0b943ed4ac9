// The served protocol texts state the rate budgets and the event limits through placeholders filled
// from the budget table and domain/events/event.limits.ts (src/transports/legacy/protocol-text.ts):
// every placeholder resolves, the served text carries their numbers, and none is written by hand.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EVENT_LIMITS, fillEventLimitPlaceholders } from '../../src/domain/events/event.limits.js';
import { budgetWindow, fillBudgetPlaceholders } from '../../src/domain/rate-budgets.rules.js';
import { protocolText, type ProtocolFile } from '../../src/transports/legacy/protocol-text.js';

const raw = (file: ProtocolFile) => readFileSync(new URL(`../../src/transports/legacy/protocol/${file}`, import.meta.url), 'utf8');
const FILES: ProtocolFile[] = ['inbound-protocol.md', 'agent-protocol.md'];

describe('budget placeholders', () => {
  it.each(FILES)('%s: every placeholder resolves and none is left', (file) => {
    expect(raw(file)).toMatch(/\{\{budget\.\w+\.\w+\}\}/);
    const served = protocolText(file);
    // JSON in the text closes braces twice (`{}}}`); only placeholders open them twice.
    expect(served).not.toContain('{{');
  });

  it('refuses an unknown budget or unit', () => {
    expect(() => fillBudgetPlaceholders('{{budget.nope.minute}}')).toThrow(/unknown budget placeholder/);
    expect(() => fillBudgetPlaceholders('{{budget.publish.hour}}')).toThrow(/unknown budget placeholder/);
    expect(() => fillBudgetPlaceholders('{{budget.publish.day}}')).toThrow(/no window per day/);
    expect(fillBudgetPlaceholders('{{budget.agent.minute}}/{{budget.agent.day}}, {errors_base}')).toBe('60/5000, {errors_base}');
  });
});

describe('the served texts carry the numbers of the table', () => {
  const publish = budgetWindow('publish', 'minute').limit;
  const request = budgetWindow('request', 'minute').limit;
  const agentMinute = budgetWindow('agent', 'minute').limit;
  const agentDay = budgetWindow('agent', 'day').limit;

  it('inbound protocol: the publish and request budgets', () => {
    const text = protocolText('inbound-protocol.md');
    expect(text).toContain(`| publish | ${publish} per minute |`);
    expect(text).toContain(`| request | ${request} per minute |`);
    expect(text).toContain(`(\`Limit\` ${publish} or ${request}, see below)`);
    expect(text).toContain(`\`X-RateLimit-Limit\` says which one a response reports (${publish} or ${request}).`);
    // The spec's figures (SPEC Limits).
    expect(text).toContain('| publish | 60 per minute |');
    expect(text).toContain('| request | 600 per minute |');
  });

  it('inbound protocol: the monitoring receivers, with a copy-paste Alertmanager receiver', () => {
    const text = protocolText('inbound-protocol.md');
    expect(text).toContain('## 16. Monitoring receivers: Prometheus Alertmanager and Grafana');
    expect(text).toContain('| POST | `/api/v1/integrations/alertmanager` |');
    expect(text).toContain('| POST | `/api/v1/integrations/grafana` |');
    expect(text).toContain(`max_alerts: ${publish}`);
    expect(text).toContain('credentials_file: /etc/prometheus/fluxdesk-token');
    expect(text).toContain('of the 60 per minute publish budget');
    expect(text).toContain('Authorization header');
  });

  it('agent protocol: the agent token budget', () => {
    const text = protocolText('agent-protocol.md');
    expect(text).toContain(`| Rate | ${agentMinute} requests per minute and ${agentDay} per day per token;`);
    expect(text).toContain(`Answers carry \`X-RateLimit-Limit\` (${agentMinute}),`);
    expect(text).toContain(`rate limits (${agentMinute}/min, ${agentDay}/day)`);
    expect(text).toContain('| Rate | 60 requests per minute and 5000 per day per token;');
  });

  it.each(FILES)('%s: no budget is written as a number by hand', (file) => {
    const text = raw(file);
    for (const n of new Set([publish, request, agentMinute, agentDay])) {
      expect(text).not.toMatch(new RegExp(`\\b${n} (requests )?per (minute|day)\\b`));
      expect(text).not.toMatch(new RegExp(`\\b${n}/(min|day)\\b`));
      expect(text).not.toMatch(new RegExp(`\\b${n} or \\d+\\b|\\b\\d+ or ${n}\\)`));
    }
  });
});

describe('event limit placeholders', () => {
  it('refuses an unknown limit', () => {
    expect(() => fillEventLimitPlaceholders('{{limit.event.nope}}')).toThrow(/unknown event limit placeholder/);
    expect(fillEventLimitPlaceholders('title 1-{{limit.event.titleMax}}, {x}')).toBe(`title 1-${EVENT_LIMITS.titleMax}, {x}`);
  });

  it('inbound protocol: the InboundEvent and ActionButton tables state the spec limits', () => {
    expect(raw('inbound-protocol.md')).toContain('| `title` | string | yes | 1-{{limit.event.titleMax}}, single line (no CR/LF) |');
    const text = protocolText('inbound-protocol.md');
    // The spec's figures (SPEC InboundEvent, ActionButton, Limits "Event fields").
    for (const row of [
      '| `event_id` | string | yes | 1-120, `^[a-zA-Z0-9_-]+$`;',
      '| `event_type` | string | yes | 1-60; free text;',
      '| `title` | string | yes | 1-200, single line (no CR/LF) |',
      '| `summary` | string | no | ≤ 500, plain text |',
      '| `markdown_body` | string | no | ≤ 8000 |',
      '| `external_url` | string | no | ≤ 2000;',
      '| `actor` | object | no | `{email (required, email, ≤ 120), name (≤ 80)}`;',
      '| `labels` | object | no | ≤ 20 entries; keys 1-80 chars; string values ≤ 80;',
      '| `actions` | array | no | ≤ 4 ActionButton objects |',
      '| `recipient` | object | no | `{type: "email", value: <email ≤ 120>}`;',
      '`{email (≤ 120), user_id (uuid), display_hint (≤ 80)}`',
      '| `project_slug` | string | no | 1-80;',
      '| `label` | string | yes | 1-40 |',
      '| `url` | string | when `action_type` is `url` | ≤ 2000, `https://`;',
      '| `webhook_url` | string | when `action_type` is `webhook` | ≤ 2000, `https://`;',
      '(`actions` > 4, `labels` > 20 entries)',
      '{"resolution_note": ≤ 500 chars}',
      '{"markdown_body": 1-8000 chars}',
    ]) {
      expect(text).toContain(row);
    }
  });

  it('agent protocol: EditHeldEvent states the publish limits', () => {
    expect(protocolText('agent-protocol.md')).toContain('title? (1-200, single line), summary? (≤ 500), markdown_body? (≤ 8000)');
  });

  it.each(FILES)('%s: no event limit of the InboundEvent table is written by hand', (file) => {
    const text = raw(file);
    expect(text).not.toMatch(/\| `title` \| string \| yes \| 1-\d/);
    expect(text).not.toMatch(/title\? \(1-\d/);
    expect(text).not.toMatch(/\| `(summary|markdown_body|external_url)` \| string \| no \| ≤ \d/);
  });
});

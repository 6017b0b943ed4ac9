// The served protocol texts state the rate budgets through placeholders filled from the budget
// table (src/transports/legacy/protocol-text.ts): every placeholder resolves, the served text
// carries the table's numbers, and no budget is written into the text by hand.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
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

// The documentation states the rate budgets in prose (README, docs/, the proto comments): each
// figure it gives is the budget table's (src/domain/rate-budgets.rules.ts), so a changed budget
// fails here until the text says so too.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { budgetWindow, RATE_BUDGETS } from '../../src/domain/rate-budgets.rules.js';

const ROOT = join(import.meta.dirname, '../..');
/** The file with runs of whitespace (line breaks, table padding) as one space. */
const prose = (file: string) => readFileSync(join(ROOT, file), 'utf8').replace(/\s+/g, ' ');

const publish = budgetWindow('publish', 'minute').limit;
const request = budgetWindow('request', 'minute').limit;
const agentMinute = budgetWindow('agent', 'minute').limit;
const agentDay = budgetWindow('agent', 'day').limit;
const session = budgetWindow('session', 'minute').limit;
const link = budgetWindow('sign_in_link', 'minute').limit;
const oidcStart = budgetWindow('sign_in_oidc_start', 'minute').limit;
const oidcCallback = budgetWindow('sign_in_oidc_callback', 'minute').limit;

describe('the budgets as the documentation states them', () => {
  it('README.md', () => {
    const text = prose('README.md');
    expect(text).toContain(`inbound tokens ${publish}/min for publishing`);
    expect(text).toContain(`${request}/min counted apart for read-back, resolve, supplement`);
    expect(text).toContain(`agent tokens ${agentMinute}/min and ${agentDay}/day for every JSON-RPC request`);
    expect(text).toContain(`A session's budget is ${session} calls per minute.`);
    // The window keys a Redis Cluster operator sees.
    const [pub, req, day] = [RATE_BUDGETS.publish.windows[0].suffix, RATE_BUDGETS.request.windows[0].suffix, RATE_BUDGETS.agent.windows[1].suffix];
    expect(text).toContain(`\`rl:{tok:<token id>}${pub}\` (publish window), \`…${req}\` (request budget), \`…${day}\` (agent day window)`);
  });

  it('docs/architecture.md', () => {
    const text = prose('docs/architecture.md');
    expect(text).toContain(
      `inbound publish ${publish}/min, other inbound calls ${request}/min (request), agent token ${agentMinute}/min + ${agentDay}/day, web session ${session}/min`,
    );
  });

  it('docs/metrics.md', () => {
    const text = prose('docs/metrics.md');
    expect(text).toContain(
      `\`${RATE_BUDGETS.publish.metricsLabel}\` (${publish}/min), \`${RATE_BUDGETS.request.metricsLabel}\` (${request}/min), ` +
        `\`${RATE_BUDGETS.agent.metricsLabel}\` (\`minute\` ${agentMinute}, \`day\` ${agentDay}; a web session's ${session}/min counts as \`${RATE_BUDGETS.session.metricsLabel}\` \`minute\`)`,
    );
    expect(text).toContain(`\`sign_in_link\` (${link}), \`sign_in_oidc_start\` (${oidcStart}), \`sign_in_oidc_callback\` (${oidcCallback})`);
  });

  it('docs/web-sign-in.md', () => {
    const text = prose('docs/web-sign-in.md');
    expect(text).toContain(`| \`POST /auth/link/<token>\` | ${link} (`);
    expect(text).toContain(`| \`GET /auth/oidc/start\` | ${oidcStart} (`);
    expect(text).toContain(`| \`GET /auth/oidc/callback\` | ${oidcCallback} |`);
    expect(text).toContain(`A session has its own budget, ${session} calls per minute and no daily cap`);
    expect(text).toContain(`keep ${agentMinute} per minute and ${agentDay} per day`);
  });

  it('the proto comments (internal callers)', () => {
    const dir = join(ROOT, 'proto');
    const files = (readdirSync(dir, { recursive: true }) as string[]).filter((f) => f.endsWith('.proto'));
    const agentFigures: string[] = [];
    const publishFigures: string[] = [];
    for (const f of files) {
      const text = prose(join('proto', f)).replace(/ \/\/ /g, ' ');
      for (const m of text.matchAll(/\((\d+) per minute, (\d+) per day;/g)) agentFigures.push(`${f}: ${m[1]}/${m[2]}`);
      for (const m of text.matchAll(/Limits: (\d+) events per minute per token/g)) publishFigures.push(`${f}: ${m[1]}`);
    }
    expect(agentFigures.length).toBeGreaterThan(0);
    expect(agentFigures.filter((s) => !s.endsWith(`: ${agentMinute}/${agentDay}`))).toEqual([]);
    expect(publishFigures.length).toBeGreaterThan(0);
    expect(publishFigures.filter((s) => !s.endsWith(`: ${publish}`))).toEqual([]);
  });
});

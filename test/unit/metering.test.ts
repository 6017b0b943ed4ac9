// Every authenticated call counts against a budget: an operation that takes a
// token is never `budget: null`, except the authentication steps of a call that counts
// itself: agent.session (the MCP surface counts each JSON-RPC request) and the Connect/gRPC
// bearer pre-checks (the operation they guard counts), and the reads a WatchInbox stream makes for
// each change (inbox.watch_read: the stream was counted once, by inbox.watch, when it opened; a
// busy inbox must not use up its owner's budget through its own stream). Read from the operation
// files, so a new operation is covered too.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentRequest } from '../../src/domain/tokens/meter-agent-request.js';
import { agentSession } from '../../src/domain/tokens/open-agent-session.js';
import { watchInbox } from '../../src/domain/inbox/watch-inbox.js';
import { watchInboxRead } from '../../src/domain/inbox/watch-inbox-read.js';
import { getDelivery } from '../../src/domain/events/get-delivery.js';
import { listEventTypes } from '../../src/domain/events/list-event-types.js';
import { resolveDelivery } from '../../src/domain/events/resolve-delivery.js';
import { supplementDelivery } from '../../src/domain/events/supplement-delivery.js';
import { publishEvent } from '../../src/domain/events/publish-event.js';
import { pingToolsToken } from '../../src/domain/tokens/ping-tools-token.js';

const AUTH_STEPS = new Set([agentSession.name, 'tokens.check_inbound_bearer', 'tokens.check_agent_bearer', watchInboxRead.name]);

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

describe('metering of operations', () => {
  it('no operation that takes a token is left unmetered', () => {
    const unmetered: string[] = [];
    for (const file of sources(join(import.meta.dirname, '../../src/domain'))) {
      const lines = readFileSync(file, 'utf8').split('\n');
      lines.forEach((line, i) => {
        if (!/^\s*budget: null,/.test(line)) return;
        // The operation's auth is declared just above its budget.
        const above = lines.slice(Math.max(0, i - 4), i).join('\n');
        const kind = /auth: \{ kind: '(\w+)'/.exec(above)?.[1];
        const name = /name: '([\w.]+)'/.exec(above)?.[1];
        if (kind === 'system' || kind === 'none' || (name && AUTH_STEPS.has(name))) return;
        unmetered.push(`${file}:${i + 1} (${name ?? '?'}, auth ${kind ?? '?'})`);
      });
    }
    expect(unmetered).toEqual([]);
  });

  it('reads and follow-ups use the request budget; publishing and every MCP request the main windows', () => {
    for (const op of [getDelivery, resolveDelivery, supplementDelivery, listEventTypes, pingToolsToken]) expect(op.budget, op.name).toBe('request');
    expect(publishEvent.budget).toBe('publish');
    expect(agentRequest.budget).toBe('agent');
    expect(agentSession.budget).toBe(null);
    // A stream is one counted call: counted when it opens, not per change it reads.
    expect(watchInbox.budget).toBe('agent');
    expect(watchInboxRead.budget).toBe(null);
  });
});

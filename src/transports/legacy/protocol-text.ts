// The served protocol texts (protocol/*.md): read once, with their `{{budget.<name>.<per>}}`
// placeholders replaced by the limits of domain/rate-budgets.rules.ts and their
// `{{limit.event.<name>}}` ones by domain/events/event.limits.ts, so the text states the budgets and
// event limits the service enforces.
import { readFileSync } from 'node:fs';
import { fillEventLimitPlaceholders } from '../../domain/events/event.limits.js';
import { fillBudgetPlaceholders } from '../../domain/rate-budgets.rules.js';

export type ProtocolFile = 'inbound-protocol.md' | 'agent-protocol.md';

export function protocolText(file: ProtocolFile): string {
  return fillEventLimitPlaceholders(fillBudgetPlaceholders(readFileSync(new URL(`./protocol/${file}`, import.meta.url), 'utf8')));
}

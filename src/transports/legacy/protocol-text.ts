// The served protocol texts (protocol/*.md): read once, with their `{{budget.<name>.<per>}}`
// placeholders replaced by the limits of domain/rate-budgets.rules.ts, their
// `{{limit.event.<name>}}` ones by domain/events/event.limits.ts and the other
// `{{limit.<area>.<name>}}` ones by the area's limits (domain/limits.ts), so the text states the
// budgets and limits the service enforces.
import { readFileSync } from 'node:fs';
import { fillEventLimitPlaceholders } from '../../domain/events/event.limits.js';
import { fillLimitPlaceholders } from '../../domain/limits.js';
import { fillBudgetPlaceholders } from '../../domain/rate-budgets.rules.js';

export type ProtocolFile = 'inbound-protocol.md' | 'agent-protocol.md';

export function protocolText(file: ProtocolFile): string {
  const raw = readFileSync(new URL(`./protocol/${file}`, import.meta.url), 'utf8');
  return fillLimitPlaceholders(fillEventLimitPlaceholders(fillBudgetPlaceholders(raw)));
}

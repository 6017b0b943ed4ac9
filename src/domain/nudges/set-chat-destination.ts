// A user sets their chat destination: one incoming-webhook URL (Slack- or Feishu/Lark-style
// payloads) that new deliveries are announced to (title, severity, inbox link; never the body).
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { CHAT_STYLES, receiverUrlIssue } from './nudge.rules.js';
import { savePreferences } from './nudges.repository.js';
import { preferencesView, type PreferencesView } from './preferences.view.js';
import { NUDGE_LIMITS } from './nudges.limits.js';

export const SetChatDestinationInput = z.strictObject({
  url: z.string().min(1).max(NUDGE_LIMITS.receiverUrlMax),
  style: z.enum(CHAT_STYLES),
});

export const setChatDestinationOperation = (allowHttpHosts: readonly string[]) =>
  defineOperation<z.infer<typeof SetChatDestinationInput>, PreferencesView, AgentPrincipal>({
    name: 'nudges.set_chat_destination',
    auth: { kind: 'agent' },
    budget: 'agent',
    requiredScopes: ['write:inbox'],
    idempotent: false,
    input: SetChatDestinationInput,
    contextRules: (raw) => {
      const url = (raw as { url?: unknown } | null)?.url;
      const issue = typeof url === 'string' ? receiverUrlIssue(url, allowHttpHosts) : null;
      return issue ? [{ field: 'url', code: 'invalid_url', message: issue }] : [];
    },
    writes: true,
    handler: async (input, ctx) => {
      const { em } = ctx;
      await savePreferences(em, ctx.principal.userId, { chat: { url: input.url, style: input.style } }, ctx.clock.now());
      return preferencesView(em, ctx.principal.userId);
    },
  });

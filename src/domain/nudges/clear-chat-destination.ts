// A user clears their chat destination: new deliveries are no longer announced to chat.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { savePreferences } from './nudges.repository.js';
import { preferencesView, type PreferencesView } from './preferences.view.js';

export const clearChatDestination = defineOperation<Record<string, never>, PreferencesView, AgentPrincipal>({
  name: 'nudges.clear_chat_destination',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['write:inbox'],
  idempotent: false,
  input: z.strictObject({}),
  writes: true,
  handler: async (_input, ctx) => {
    const { em } = ctx;
    await savePreferences(em, ctx.principal.userId, { chat: null }, ctx.clock.now());
    return preferencesView(em, ctx.principal.userId);
  },
});

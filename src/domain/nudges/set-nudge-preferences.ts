// A user sets which severities nudge them and whether chat is on; the spec leaves the per-severity
// push rule open.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { SEVERITIES } from '../events/event.limits.js';
import { savePreferences } from './nudges.repository.js';
import { preferencesView, type PreferencesView } from './preferences.view.js';

export const SetPreferencesInput = z.strictObject({
  /** Severities that nudge; an empty list turns nudges off (everything lands in the inbox only). */
  push_severities: z.array(z.enum(SEVERITIES)).max(SEVERITIES.length).optional(),
  chat_enabled: z.boolean().optional(),
});

export const setNudgePreferences = defineOperation<z.infer<typeof SetPreferencesInput>, PreferencesView, AgentPrincipal>({
  name: 'nudges.set_preferences',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['write:inbox'],
  idempotent: false,
  input: SetPreferencesInput,
  writes: true,
  handler: async (input, ctx) => {
    const { em } = ctx;
    const sev = input.push_severities ? [...new Set(input.push_severities)] : undefined;
    await savePreferences(em, ctx.principal.userId, { pushSeverities: sev, chatEnabled: input.chat_enabled }, ctx.clock.now());
    return preferencesView(em, ctx.principal.userId);
  },
});

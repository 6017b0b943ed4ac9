// A user reads their nudge preferences (preferences.view.ts).
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { preferencesView, type PreferencesView } from './preferences.view.js';

export const getNudgePreferences = defineOperation<Record<string, never>, PreferencesView, AgentPrincipal>({
  name: 'nudges.get_preferences',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['read:inbox'],
  idempotent: false,
  input: z.strictObject({}),
  handler: async (_input, ctx) => preferencesView(ctx.em, ctx.principal.userId),
});

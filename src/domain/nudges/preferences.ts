// A user's nudge preferences. `push_severities` is the set of severities that nudge at all (browser
// push, and chat when a destination is set and chat is enabled); default critical and warn, so info
// and success only land in the inbox. The spec leaves the per-severity push rule open.
import type { EntityManager } from '@mikro-orm/core';
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { SEVERITIES } from '../events/event.limits.js';
import type { ChatStyle } from './nudge.rules.js';
import { countPushSubscriptions, getPreferences, savePreferences } from './nudges.repository.js';

export interface PreferencesView {
  pushSeverities: string[];
  chatEnabled: boolean;
  /** The webhook URL is a credential of the chat workspace: only its origin and last characters are shown. */
  chatDestination: { urlHint: string; style: ChatStyle } | null;
  pushSubscriptionCount: number;
}

export function urlHint(url: string): string {
  try {
    const u = new URL(url);
    const tail = `${u.pathname}${u.search}`;
    return `${u.origin}/…${tail.length > 4 ? tail.slice(-4) : ''}`;
  } catch {
    return '…';
  }
}

export async function preferencesView(em: EntityManager, userId: string): Promise<PreferencesView> {
  const p = await getPreferences(em, userId);
  return {
    pushSeverities: SEVERITIES.filter((s) => p.pushSeverities.includes(s)),
    chatEnabled: p.chatEnabled,
    chatDestination: p.chatUrl && p.chatStyle ? { urlHint: urlHint(p.chatUrl), style: p.chatStyle } : null,
    pushSubscriptionCount: await countPushSubscriptions(em, userId),
  };
}

export const getNudgePreferences = defineOperation<Record<string, never>, PreferencesView, AgentPrincipal>({
  name: 'nudges.get_preferences',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['read:inbox'],
  idempotent: false,
  input: z.strictObject({}),
  handler: async (_input, ctx) => preferencesView(ctx.em, ctx.principal.userId),
});

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

// A user's nudge preferences as the nudge operations answer them. `pushSeverities` is the set of
// severities that nudge at all (browser push, and chat when a destination is set and chat is
// enabled); default critical and warn, so info and success only land in the inbox. `quietHours`
// (none by default) holds nudges below critical back; `doneOnResolution` (default off) moves an
// inbox row to Done when its sender resolves it; `groupInbox` (default on) collapses a token's
// repeats of one event type into one row in the web app's Inbox view.
import type { EntityManager } from '@mikro-orm/core';
import { SEVERITIES } from '../events/event.limits.js';
import type { ChatStyle } from './nudge.rules.js';
import type { QuietHours } from './quiet-hours.rules.js';
import { countPushSubscriptions, getPreferences } from './nudges.repository.js';

export interface PreferencesView {
  pushSeverities: string[];
  chatEnabled: boolean;
  /** The webhook URL is a credential of the chat workspace: only its origin and last characters are shown. */
  chatDestination: { urlHint: string; style: ChatStyle } | null;
  pushSubscriptionCount: number;
  quietHours: QuietHours | null;
  doneOnResolution: boolean;
  /** "Group repeats" in the web app's Inbox view (default on). */
  groupInbox: boolean;
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
    quietHours: p.quietHours,
    doneOnResolution: p.doneOnResolution,
    groupInbox: p.groupInbox,
  };
}

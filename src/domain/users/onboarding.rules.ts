// Invitation vocabulary and what a new user starts with (SPEC C `invite_user`): the onboarding
// checklist and the default notification preferences, derived from the invitation alone.

export const INVITABLE_ROLES = ['member', 'admin', 'hr_admin', 'super_admin', 'assistant'] as const;
export const EMPLOYMENT_TYPES = ['full_time', 'part_time', 'contractor'] as const;
export const LOCATIONS = ['china', 'overseas'] as const;
export const UI_LANGUAGES = ['en', 'zh', 'zh-TW', 'ja'] as const;
export const USER_STATUSES = ['active', 'offboarding', 'offboarded'] as const;

export type EmploymentType = (typeof EMPLOYMENT_TYPES)[number];
export type Location = (typeof LOCATIONS)[number];
export type UiLanguage = (typeof UI_LANGUAGES)[number];

export interface ChecklistItem {
  key: string;
  title: string;
  /** Where in the web interface the step is done. */
  path: string;
  done: boolean;
}

export function onboardingChecklist(p: { employmentType: EmploymentType; location: Location }): ChecklistItem[] {
  const items: ChecklistItem[] = [
    { key: 'profile', title: 'Check your profile: name, location and language', path: '/settings/profile', done: false },
    { key: 'notifications', title: 'Review your notification preferences', path: '/settings/notifications', done: false },
    { key: 'team_support', title: 'Request the access you need in Team support', path: '/team-support', done: false },
    { key: 'agent_client', title: 'Connect your AI client with an agent token', path: '/settings/agent', done: false },
  ];
  // Cross-border communication access is a catalog row of its own (category cross-border-comm).
  if (p.location === 'china') items.push({ key: 'cross_border', title: 'Apply for cross-border communication access', path: '/team-support', done: false });
  if (p.employmentType === 'contractor')
    items.push({ key: 'contractor_terms', title: 'Confirm the contractor access terms with your contact', path: '/settings/profile', done: false });
  return items;
}

export interface NotificationPreferences {
  inbox: boolean;
  push: boolean;
  chat: boolean;
  emailDigest: 'off' | 'daily' | 'weekly';
  locale: UiLanguage;
}

export function defaultNotificationPreferences(p: { uiLanguage: UiLanguage }): NotificationPreferences {
  return { inbox: true, push: true, chat: true, emailDigest: 'daily', locale: p.uiLanguage };
}

/** The welcome inbox row (no secrets: the invitation itself carries none). */
export function welcomeNotification(name: string, steps: number): { title: string; summary: string; path: string } {
  return { title: `Welcome to fluxdesk, ${name}`.slice(0, 200), summary: `Your onboarding checklist is ready: ${steps} steps.`, path: '/onboarding' };
}

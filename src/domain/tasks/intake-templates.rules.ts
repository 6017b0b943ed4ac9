// Owner intake templates (SPEC C get_owner_intake_templates): what an agent starts from when it
// drafts a task for a given owner. The description is a fixed starting draft (the owner's own
// when they saved one, else the system's); checklists are the owner's templates, or the system
// default when the owner has none. Sources: `owner`, `system`, or `none` when the owner saved an
// empty checklist list on purpose (they want no checklist).
import { z } from 'zod';
import { TASK_LIMITS } from './tasks.limits.js';

export const INTAKE_SOURCES = ['owner', 'system', 'none'] as const;
export type IntakeSource = (typeof INTAKE_SOURCES)[number];

export const IntakeDescription = z.object({
  label: z.string().trim().min(1).max(TASK_LIMITS.intakeLabelMax),
  body: z.string().min(1).max(TASK_LIMITS.intakeBodyMax),
});
export type IntakeDescription = z.infer<typeof IntakeDescription>;

export const IntakeChecklist = z.object({
  title: z.string().trim().min(1).max(TASK_LIMITS.intakeChecklistTitleMax),
  items: z.array(z.string().trim().min(1).max(TASK_LIMITS.intakeChecklistItemMax)).min(1).max(TASK_LIMITS.intakeChecklistItemsMax),
});
export type IntakeChecklist = z.infer<typeof IntakeChecklist>;

export const SYSTEM_INTAKE_DESCRIPTION: IntakeDescription = {
  label: 'Request',
  body: [
    '## Goal',
    'What should be true when this is done, in one or two sentences.',
    '',
    '## Context',
    'Links to the originating system, background, who asked.',
    '',
    '## Acceptance criteria',
    '- [ ] ...',
    '',
    '## Deadline',
    'A date, or "none".',
  ].join('\n'),
};

export const SYSTEM_INTAKE_CHECKLISTS: readonly IntakeChecklist[] = [
  {
    title: 'Before handing over',
    items: [
      'The goal is stated in one sentence',
      'Links to the source system are included (no copied content)',
      'Acceptance criteria are listed',
      'A due date or "no deadline" is given',
    ],
  },
];

export interface OwnerTemplates {
  descriptionLabel: string | null;
  descriptionBody: string | null;
  /** null: not set (system default applies); []: the owner wants none. */
  checklists: IntakeChecklist[] | null;
}

export interface ResolvedIntakeTemplates {
  description: IntakeDescription;
  description_source: IntakeSource;
  checklists: IntakeChecklist[];
  checklist_source: IntakeSource;
}

export function resolveIntakeTemplates(owner: OwnerTemplates | null): ResolvedIntakeTemplates {
  const ownDescription = owner?.descriptionLabel && owner.descriptionBody ? { label: owner.descriptionLabel, body: owner.descriptionBody } : null;
  const checklists = owner?.checklists ?? null;
  let checklist: { checklists: IntakeChecklist[]; checklist_source: IntakeSource };
  if (checklists === null)
    checklist = SYSTEM_INTAKE_CHECKLISTS.length
      ? { checklists: SYSTEM_INTAKE_CHECKLISTS.map((c) => ({ ...c, items: [...c.items] })), checklist_source: 'system' }
      : { checklists: [], checklist_source: 'none' };
  else checklist = checklists.length ? { checklists, checklist_source: 'owner' } : { checklists: [], checklist_source: 'none' };
  return {
    description: ownDescription ?? { ...SYSTEM_INTAKE_DESCRIPTION },
    description_source: ownDescription ? 'owner' : 'system',
    ...checklist,
  };
}

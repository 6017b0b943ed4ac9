// Intake templates (src/domain/tasks/intake-templates.rules.ts): the owner's values or the system's.
import { describe, expect, it } from 'vitest';
import { resolveIntakeTemplates, SYSTEM_INTAKE_CHECKLISTS, SYSTEM_INTAKE_DESCRIPTION } from '../../src/domain/tasks/intake-templates.rules.js';

describe('intake templates', () => {
  it('no owner row: the system draft and checklists', () => {
    expect(resolveIntakeTemplates(null)).toEqual({
      description: SYSTEM_INTAKE_DESCRIPTION,
      description_source: 'system',
      checklists: SYSTEM_INTAKE_CHECKLISTS,
      checklist_source: 'system',
    });
  });
  it('owner values win; an empty checklist list is "none"; null falls back', () => {
    const own = resolveIntakeTemplates({ descriptionLabel: 'Bug report', descriptionBody: 'Steps', checklists: [{ title: 'T', items: ['a'] }] });
    expect(own).toMatchObject({
      description: { label: 'Bug report', body: 'Steps' },
      description_source: 'owner',
      checklist_source: 'owner',
      checklists: [{ title: 'T', items: ['a'] }],
    });
    expect(resolveIntakeTemplates({ descriptionLabel: null, descriptionBody: null, checklists: [] })).toMatchObject({
      description_source: 'system',
      checklists: [],
      checklist_source: 'none',
    });
    expect(resolveIntakeTemplates({ descriptionLabel: 'L', descriptionBody: 'B', checklists: null })).toMatchObject({
      description_source: 'owner',
      checklist_source: 'system',
    });
  });
});

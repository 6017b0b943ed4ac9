import { getOwnerIntakeTemplates, GetOwnerIntakeTemplatesOutput } from '../../../../domain/tasks/get-owner-intake-templates.js';
import type { ToolDefinition } from '../tool.js';

export const getOwnerIntakeTemplatesTool: ToolDefinition = {
  name: 'get_owner_intake_templates',
  title: 'Get owner intake templates',
  description:
    'The starting point for drafting a task for an owner (owner_user_id wins over owner_email; yourself when neither is given): {owner, description{label, body}, description_source, checklists[{title, items[]}], checklist_source}. ' +
    "description is a fixed starting draft; checklists are the owner's templates or the system default. Sources: owner, system, none (the owner chose no checklist).",
  operation: getOwnerIntakeTemplates,
  output: GetOwnerIntakeTemplatesOutput,
  readOnly: true,
};

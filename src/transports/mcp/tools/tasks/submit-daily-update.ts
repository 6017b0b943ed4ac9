import { submitDailyUpdate, SubmitDailyUpdateOutput } from '../../../../domain/daily-updates/submit-daily-update.js';
import type { ToolDefinition } from '../tool.js';
import { DAILY_UPDATE_LIMITS } from '../../../../domain/daily-updates/daily-updates.limits.js';

export const submitDailyUpdateTool: ToolDefinition = {
  name: 'submit_daily_update',
  title: 'Submit daily update',
  description:
    `Your update for today (UTC): availabilityStatus (available, limited, unavailable, out_of_office), mainTaskIds (task ids or codes you can see, at most ${DAILY_UPDATE_LIMITS.mainTasksMax}), contactWindow?, blockers?, note?. ` +
    'One entry per day; submitting again overwrites it. Returns {date, updated} (updated: true when an entry was overwritten). Scope write:tasks.',
  operation: submitDailyUpdate,
  output: SubmitDailyUpdateOutput,
  readOnly: false,
  idempotent: true,
};

// The cross-type search operation (SPEC C `search`) and meetings, for the agent registry in app/operations.ts.
import type { Operation } from '../context.js';
import { createMeeting } from './create-meeting.js';
import { search } from './search.js';

export const SEARCH_OPERATIONS: readonly Operation<any, any, any>[] = [search];

/**
 * Operator operations of this area (meetings.create). Not in app/operations.ts's OPERATOR list yet:
 * tests run it through runOperation with the system principal; add it there to expose it to the CLI.
 */
export const SEARCH_OPERATOR_OPERATIONS: readonly Operation<any, any, any>[] = [createMeeting];

import { whoami, WhoamiOutput } from '../../../domain/tokens/whoami.js';
import type { ToolDefinition } from './tool.js';

export const whoamiTool: ToolDefinition = {
  name: 'whoami',
  title: 'Who am I',
  description: 'The user this agent token acts for ({userId, email, name, role, now}) and the scopes the token holds. Needs no scope.',
  operation: whoami,
  output: WhoamiOutput,
  readOnly: true,
};

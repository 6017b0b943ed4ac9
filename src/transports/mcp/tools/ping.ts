import { agentPing, PingOutput } from '../../../domain/tokens/ping-agent-token.js';
import type { ToolDefinition } from './tool.js';

export const pingTool: ToolDefinition = {
  name: 'ping',
  title: 'Ping',
  description: 'Checks that the token works: {userId, email, name, role, now}. Needs no scope.',
  operation: agentPing,
  output: PingOutput,
  readOnly: true,
};

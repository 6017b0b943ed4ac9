import { searchUserByUsername, SearchUserByUsernameOutput } from '../../../domain/users/search-user-by-username.js';
import type { ToolDefinition } from './tool.js';
import { USER_LIMITS } from '../../../domain/users/users.limits.js';

export const searchUserByUsernameTool: ToolDefinition = {
  name: 'search_user_by_username',
  title: 'Search user by username (admin)',
  description: `Users whose email local part matches username (exact, then prefix, then substring), at most ${USER_LIMITS.searchResultsMax}: {items[{user_id, email, name, role, status, domain, created_at}]}; none is {items: []}. username must not contain "@" (structured 422 username_contains_at). only_active default true. Admin users only.`,
  operation: searchUserByUsername,
  output: SearchUserByUsernameOutput,
  errorForm: 'structured',
  readOnly: true,
};

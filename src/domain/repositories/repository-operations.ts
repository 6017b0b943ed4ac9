// The project repository operations (SPEC C list_project_repositories, list_project_repository_commits,
// bind_project_repository, unbind_project_repository), for the agent registry in app/operations.ts;
// the operator operations granting the `code.repo.bind` capability; the push webhook's operation
// (called by transports/legacy/repository-webhooks.ts only).
import type { Operation } from '../context.js';
import { bindProjectRepositoryOp } from './bind-project-repository.js';
import { grantUserCapability, revokeUserCapability } from './capabilities.js';
import { listProjectRepositoriesOp } from './list-project-repositories.js';
import { listProjectRepositoryCommitsOp } from './list-project-repository-commits.js';
import { unbindProjectRepositoryOp } from './unbind-project-repository.js';

export const REPOSITORY_OPERATIONS: readonly Operation<any, any, any>[] = [
  listProjectRepositoriesOp,
  listProjectRepositoryCommitsOp,
  bindProjectRepositoryOp,
  unbindProjectRepositoryOp,
];

/** Operator operations (CLI `user grant-capability` / `user revoke-capability`). */
export const REPOSITORY_OPERATOR_OPERATIONS: readonly Operation<any, any, any>[] = [grantUserCapability, revokeUserCapability];

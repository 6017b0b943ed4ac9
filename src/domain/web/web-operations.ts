// Web sign-in operations an operator runs (the CLI, locally or through the embedded server's socket).
import type { Operation } from '../context.js';
import { createLoginLink } from './create-login-link.js';

export const WEB_OPERATOR_OPERATIONS: Operation<any, any, any>[] = [createLoginLink];

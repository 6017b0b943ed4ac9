// Sign-in (OIDC, one-time login links), sign-out and sessions: filled in by issue 19's sign-in work.
import type { FastifyInstance } from 'fastify';
import type { WebPluginOptions } from './plugin.js';

export async function registerAuthRoutes(_app: FastifyInstance, _opts: WebPluginOptions): Promise<void> {}

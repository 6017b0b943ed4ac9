// The built web app (dist/web), its service worker and the /errors/<slug> pages: filled in by issue 19's web app work.
import type { FastifyInstance } from 'fastify';
import type { WebPluginOptions } from './plugin.js';

export async function registerWebApp(_app: FastifyInstance, _opts: WebPluginOptions): Promise<void> {}

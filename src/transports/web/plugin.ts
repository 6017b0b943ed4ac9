// The web app's HTTP face: sign-in and session routes (auth-routes.ts) and the built
// single-page app, its service worker and the /errors/<slug> pages (web-app.ts). The app itself
// talks to the same Connect services as every other client (session cookie + x-csrf-token).
import type { FastifyInstance } from 'fastify';
import { registerAuthRoutes } from './auth-routes.js';
import type { WebPluginOptions } from './plugin-options.js';
import { registerWebApp } from './web-app.js';

export async function webPlugin(app: FastifyInstance, opts: WebPluginOptions): Promise<void> {
  await registerAuthRoutes(app, opts);
  await registerWebApp(app, opts);
}

// The web app's HTTP face (issue 19): sign-in and session routes (auth-routes.ts) and the built
// single-page app, its service worker and the /errors/<slug> pages (web-app.ts). The app itself
// talks to the same Connect services as every other client (session cookie + x-csrf-token).
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../app/deps.js';
import type { OidcConfig } from '../../config.js';
import { registerAuthRoutes } from './auth-routes.js';
import { registerWebApp } from './web-app.js';

export interface WebPluginOptions {
  deps: AppDeps;
  publicBaseUrl: string;
  errorsBaseUrl: string;
  /** OIDC_* (company SSO); null = sign-in by one-time link only. */
  oidc?: OidcConfig | null;
}

export async function webPlugin(app: FastifyInstance, opts: WebPluginOptions): Promise<void> {
  await registerAuthRoutes(app, opts);
  await registerWebApp(app, opts);
}

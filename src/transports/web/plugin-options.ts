// What the web plugin is given (http/server.ts): shared by the sign-in routes and the web app.
import type { AppDeps } from '../../app/deps.js';
import type { OidcConfig } from '../../config.js';

export interface WebPluginOptions {
  deps: AppDeps;
  publicBaseUrl: string;
  errorsBaseUrl: string;
  /** OIDC_* (company SSO); null = sign-in by one-time link only. */
  oidc?: OidcConfig | null;
}

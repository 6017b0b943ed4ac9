// Absolute links the agent tools return (SPEC C: `url` fields are addresses a user can open).
import type { DomainConfig } from '../context.js';

export const projectUrl = (config: Pick<DomainConfig, 'publicBaseUrl'>, slug: string): string => `${config.publicBaseUrl}/projects/${encodeURIComponent(slug)}`;

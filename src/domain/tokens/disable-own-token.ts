// The owner disables one of their inbound tokens: recoverable with enable-own-token.ts.
import { setState } from './own-tokens.shared.js';

export const disableOwnToken = setState('tokens.disable_own', 'active', 'disabled');

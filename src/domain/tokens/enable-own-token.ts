// The owner re-enables a token they disabled (the operation the spec leaves open).
import { setState } from './own-tokens.shared.js';

export const enableOwnToken = setState('tokens.enable_own', 'disabled', 'active');

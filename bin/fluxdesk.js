#!/usr/bin/env node
// Launcher for the TypeScript CLI (tsx loader; Node >= 22.17 from the `node` package).
import { register } from 'tsx/esm/api';

register();
await import('../src/transports/cli/main.ts');

#!/usr/bin/env node
// fluxdesk-send: see ../README.md or `fluxdesk-send --help`.
import { main } from '../lib/cli.js';

process.exitCode = await main(process.argv.slice(2), { env: process.env, stdout: process.stdout, stderr: process.stderr, stdin: process.stdin });

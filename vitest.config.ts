import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // clients/sender: the sender package's own tests (its library and CLI against a local server).
    include: ['test/**/*.test.ts', 'clients/sender/test/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // 'default' as usual, plus a guard against vitest stalling in its own shutdown after every file
    // has reported (test/helpers/shutdown-watchdog-reporter.ts).
    reporters: ['default', './test/helpers/shutdown-watchdog-reporter.ts'],
    // The web app's assets are built (when stale) before the browser tests (test/helpers/web-build-global.ts).
    // OpenAPI response conformance of every service the harness starts (test/helpers/conformance*.ts;
    // CONFORMANCE=strict|report|off).
    globalSetup: ['test/helpers/conformance-global.ts', 'test/helpers/web-build-global.ts'],
    setupFiles: ['test/helpers/conformance-setup.ts'],
  },
});

// A vitest reporter that ends a run whose every test file has reported but which then does not
// finish. Vitest's fork pool can stall in its own shutdown after the last file (the summary never
// prints and the process waits forever: vitest-dev/vitest#10162 and similar reports); one CI run
// of this project used its whole 90 minutes that way. When every file of the run has ended and the
// run has not finished WATCHDOG_GRACE_MS later, this prints what it knows (files passed, failed)
// and exits with the result those files gave: 1 if any file failed or had an error, else 0.
// A run that finishes normally is untouched (the timer is cleared).
import type { Reporter, TestModule, TestSpecification } from 'vitest/node';

const GRACE_MS = Number(process.env.WATCHDOG_GRACE_MS ?? 120_000);

export default class ShutdownWatchdogReporter implements Reporter {
  #expected = 0;
  #ended = 0;
  #failed: string[] = [];
  #timer: NodeJS.Timeout | undefined;

  onTestRunStart(specifications: ReadonlyArray<TestSpecification>): void {
    this.#expected = specifications.length;
  }

  onTestModuleEnd(testModule: TestModule): void {
    this.#ended++;
    if (!testModule.ok()) this.#failed.push(testModule.moduleId);
    if (this.#expected > 0 && this.#ended >= this.#expected && this.#timer === undefined) {
      this.#timer = setTimeout(() => this.#stalled(), GRACE_MS);
      this.#timer.unref();
    }
  }

  onTestRunEnd(): void {
    if (this.#timer) clearTimeout(this.#timer);
  }

  #stalled(): void {
    const failed = this.#failed.length;
    process.stderr.write(
      `\n[shutdown-watchdog] all ${this.#ended} test files ended ${GRACE_MS / 1000}s ago but vitest has not finished its run; ` +
        `exiting with their result: ${this.#ended - failed} passed, ${failed} failed${failed ? `:\n  ${this.#failed.join('\n  ')}` : ''}\n`,
    );
    process.exit(failed ? 1 : 0);
  }
}

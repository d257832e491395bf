import type { Reporter, TestModule } from "vitest/node";

/** Ends the run with one plain line, "tests: N passed, N failed", that any CI log reader understands. */
export default class SummaryReporter implements Reporter {
  private line = "";

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === "passed") passed += 1;
        else if (state === "failed") failed += 1;
        else skipped += 1;
      }
      if (module.state() === "failed" && module.children.size === 0) failed += 1; // a file that failed to load
    }
    this.line = `tests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`;
  }

  // Printed last, after the default reporter's own summary, so it is the run's closing line.
  onFinished(): void {
    if (this.line) process.stdout.write(`\n${this.line}\n`);
  }
}

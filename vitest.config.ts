import { defineConfig } from "vitest/config"
import SuiteOrder from "./test/support/Sequencer.js"

/**
 * Test files run side by side in 4 workers by default (`TEST_WORKERS`): on this project's
 * 2-core machine a file spends much of its time waiting on PostgreSQL, a child process or a
 * socket, so more workers than cores fill the time the others leave idle (measured on the whole
 * suite: 584 s with 3 workers, 418 s with 4).
 */
const workers = Number(process.env["TEST_WORKERS"] ?? 4)

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // One PostgreSQL for the run (embedded unless DATABASE_URL is set); each file gets its own database.
    globalSetup: ["test/support/globalSetup.ts"],
    // A worker keeps its modules from one file to the next (each file still builds its own
    // layers and database): loading the service's modules anew for each file was a third of the
    // suite's CPU. What a file may not leak into the next is undone by `restoreEffectIt.ts`.
    isolate: false,
    setupFiles: ["test/support/restoreEffectIt.ts"],
    // As many workers at the start as at most: tinypool ending an idle worker mid-run failed
    // the run with an unhandled "Terminating worker thread".
    minWorkers: workers,
    maxWorkers: workers,
    // Light files first, one per worker, to take each worker's cold start; the benchmarks spread
    // over the run (Sequencer.ts).
    sequence: { sequencer: SuiteOrder },
    testTimeout: 60_000,
    hookTimeout: 120_000
  }
})

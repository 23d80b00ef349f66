import * as path from "node:path"
import { BaseSequencer, type TestSpecification } from "vitest/node"

/**
 * The files each worker starts with: light ones. A worker's first file pays for loading the
 * service's modules (each later file finds them loaded: `isolate: false`), about 15-20 s while
 * every worker loads at once on 2 cores; and the first file that asks for the small world loads
 * its template (`AdWorld.ts`). Put on the heaviest files (the default order: the slowest of the
 * last run first, or the largest on a clean clone), those costs took them past issue 43's 45 s.
 * Here they fall on files of a few seconds: the world on `readiness.test.ts`, which needs it.
 */
export const openers = ["test/readiness.test.ts", "test/routes.test.ts", "test/http.test.ts", "test/gateway.test.ts"]

/**
 * The benchmarks' tests each run a script, its server and PostgreSQL side by side: up to both
 * cores for 15-30 s. In vitest's order they are all the longest (or, on a clean clone, all the
 * smallest files) and ran at once, each then at a quarter of the machine.
 */
const isBenchmark = (file: string) => file.startsWith("test/benchmarks/")

/**
 * Vitest's order (`BaseSequencer`), with the `openers` first and the benchmarks spread evenly
 * over the rest: one at a time beside the in-process files.
 */
export default class SuiteOrder extends BaseSequencer {
  override async sort(files: Array<TestSpecification>): Promise<Array<TestSpecification>> {
    const sorted = await super.sort(files)
    const name = (file: TestSpecification) => path.relative(this.ctx.config.root, file.moduleId).split(path.sep).join("/")
    const rank = (file: TestSpecification) => openers.indexOf(name(file))
    const first = sorted.filter((file) => rank(file) >= 0).sort((a, b) => rank(a) - rank(b))
    const benchmarks = sorted.filter((file) => rank(file) < 0 && isBenchmark(name(file)))
    const rest = sorted.filter((file) => rank(file) < 0 && !isBenchmark(name(file)))
    const every = (rest.length + benchmarks.length) / Math.max(1, benchmarks.length)
    const spread: Array<TestSpecification> = []
    for (const [placed, file] of rest.entries()) {
      // The k-th benchmark at (k + 0.5) steps: the start is the workers' cold load (the openers).
      const benchmarksPlaced = spread.length - placed
      if (benchmarks.length > 0 && spread.length >= Math.round((benchmarksPlaced + 0.5) * every)) spread.push(benchmarks.shift()!)
      spread.push(file)
    }
    return [...first, ...spread, ...benchmarks]
  }
}

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

/** Vitest's order (`BaseSequencer`), with the `openers` first. */
export default class OpenersFirst extends BaseSequencer {
  override async sort(files: Array<TestSpecification>): Promise<Array<TestSpecification>> {
    const sorted = await super.sort(files)
    const rank = (file: TestSpecification) => openers.indexOf(path.relative(this.ctx.config.root, file.moduleId).split(path.sep).join("/"))
    const first = sorted.filter((file) => rank(file) >= 0).sort((a, b) => rank(a) - rank(b))
    return [...first, ...sorted.filter((file) => rank(file) < 0)]
  }
}

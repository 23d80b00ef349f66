import type { Reporter, TestModule } from "vitest/node"
import * as path from "node:path"

/** The limit issue 43 sets for one file: a file over it is a defect to mend. */
const limitSeconds = 45

interface Timing {
  readonly file: string
  readonly seconds: number
  readonly collect: number
  readonly run: number
  readonly tests: number
  readonly state: string
}

const seconds = (ms: number) => ms / 1000

/**
 * `npm run test:timings`: each file's wall time (worker start, import of its modules, its
 * layers and hooks, its tests), slowest first, and the run's own; what "no file over 45 s" is
 * checked against.
 */
export default class TimingsReporter implements Reporter {
  private readonly timings: Array<Timing> = []
  private started = 0

  // From vitest's start: the global setup (the cluster, the template databases) is the run's too.
  onInit() {
    this.started = performance.now()
  }

  onTestModuleEnd(module: TestModule) {
    const d = module.diagnostic()
    const collect = d.environmentSetupDuration + d.prepareDuration + d.setupDuration + d.collectDuration
    this.timings.push({
      file: path.relative(process.cwd(), module.moduleId),
      seconds: seconds(collect + d.duration),
      collect: seconds(collect),
      run: seconds(d.duration),
      tests: Array.from(module.children.allTests()).length,
      state: module.state()
    })
  }

  onTestRunEnd() {
    const wall = seconds(performance.now() - this.started)
    const sorted = [...this.timings].sort((a, b) => b.seconds - a.seconds)
    const width = Math.max(4, ...sorted.map((t) => t.file.length))
    const fixed = (n: number) => n.toFixed(1).padStart(7)
    const lines = [
      "",
      `${"file".padEnd(width)}   total s  import s  tests+hooks s  tests  state`,
      ...sorted.map((t) =>
        `${t.file.padEnd(width)} ${fixed(t.seconds)}   ${fixed(t.collect)}   ${fixed(t.run)}       ${String(t.tests).padStart(5)}  ${t.state}${t.seconds > limitSeconds ? `  OVER ${limitSeconds} s` : ""}`
      ),
      "",
      `${sorted.length} files, summed ${sorted.reduce((n, t) => n + t.seconds, 0).toFixed(1)} s; the run took ${wall.toFixed(1)} s of wall time; ` +
      `${sorted.filter((t) => t.seconds > limitSeconds).length} over ${limitSeconds} s`,
      ""
    ]
    process.stdout.write(lines.join("\n") + "\n")
  }
}

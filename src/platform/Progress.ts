import { Clock, Effect } from "effect"

/**
 * Progress of a long command: a line redrawn in place on a terminal (counts and rate), nothing
 * until the end otherwise, so logs and pipes get a plain summary.
 */
export const progressLine = (label: string) =>
  Effect.gen(function*() {
    const interactive = process.stderr.isTTY === true
    const started = yield* Clock.currentTimeMillis
    let lastDraw = 0
    const draw = (text: string) => Effect.sync(() => process.stderr.write(`\r\x1b[2K${text}`))
    return {
      update: (done: number, total: number | undefined, detail: string) =>
        Effect.gen(function*() {
          if (!interactive) return
          const now = yield* Clock.currentTimeMillis
          if (now - lastDraw < 100 && (total === undefined || done < total)) return
          lastDraw = now
          const rate = done / Math.max(0.001, (now - started) / 1000)
          const share = total ? ` ${Math.floor((100 * done) / Math.max(1, total))}%` : ""
          const width = 24
          const filled = total ? Math.round((width * done) / Math.max(1, total)) : 0
          const bar = total ? ` [${"#".repeat(filled)}${".".repeat(width - filled)}]` : ""
          yield* draw(`${label}${bar}${share} ${done.toLocaleString("en-US")} rows, ${Math.round(rate).toLocaleString("en-US")}/s ${detail}`)
        }),
      finish: Effect.gen(function*() {
        if (interactive) yield* Effect.sync(() => process.stderr.write("\n"))
        const seconds = ((yield* Clock.currentTimeMillis) - started) / 1000
        return seconds
      })
    }
  })

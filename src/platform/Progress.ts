import { Clock, Effect } from "effect"

/** A duration in seconds as a clock reads: `0:45`, `12:03`, `1:02:03`. */
const clockTime = (seconds: number) => {
  const s = Math.max(0, Math.round(seconds))
  const hours = Math.floor(s / 3_600)
  const minutes = Math.floor((s % 3_600) / 60)
  const rest = String(s % 60).padStart(2, "0")
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, "0")}:${rest}` : `${minutes}:${rest}`
}

/**
 * How far a long piece of work is (issue 29): its share and count of `total` when known, its
 * rate and, from that rate, the time left (`ETA`). One line of text, for terminals and logs alike:
 * `45% 450,000 / 1,000,000 records, 12,345/s, ETA 0:45`.
 */
export const progressText = (done: number, total: number | undefined, elapsedMillis: number, unit: string) => {
  const rate = done / Math.max(0.001, elapsedMillis / 1000)
  const count = `${done.toLocaleString("en-US")}${total === undefined ? "" : ` / ${total.toLocaleString("en-US")}`} ${unit}`
  const share = total === undefined ? "" : `${Math.floor((100 * done) / Math.max(1, total))}% `
  const eta = total === undefined || rate <= 0 ? "" : `, ETA ${clockTime(Math.max(0, total - done) / rate)}`
  return `${share}${count}, ${Math.round(rate).toLocaleString("en-US")}/s${eta}`
}

/** The running text of a piece of work started now: `text(done, total)` says how far it is, by the clock. */
export const progressOf = (unit: string) =>
  Effect.map(Clock.currentTimeMillis, (started) => ({
    text: (done: number, total: number | undefined) => Effect.map(Clock.currentTimeMillis, (now) => progressText(done, total, now - started, unit))
  }))

/**
 * Progress of a long command: on a terminal a line redrawn in place (a bar, counts, rate and
 * time left); elsewhere (logs, pipes) the same line printed every `plainEvery` milliseconds, so
 * a long load in a log says how far it is.
 */
export const progressLine = (label: string, unit = "rows", plainEvery = 10_000) =>
  Effect.gen(function*() {
    const interactive = process.stderr.isTTY === true
    const started = yield* Clock.currentTimeMillis
    let lastDraw = interactive ? 0 : started
    // What the line says last, drawn or not: a log gets it at the end.
    let last: { readonly done: number; readonly total: number | undefined; readonly detail: string } | undefined
    let drawn = true
    const draw = (text: string) => Effect.sync(() => process.stderr.write(interactive ? `\r\x1b[2K${text}` : `${text}\n`))
    const line = (now: number) => {
      if (last === undefined) return ""
      const { detail, done, total } = last
      const width = 24
      const filled = total ? Math.round((width * done) / Math.max(1, total)) : 0
      const bar = interactive && total ? ` [${"#".repeat(filled)}${".".repeat(width - filled)}]` : ""
      return `${label}${bar} ${progressText(done, total, now - started, unit)} ${detail}`
    }
    return {
      update: (done: number, total: number | undefined, detail: string) =>
        Effect.gen(function*() {
          const now = yield* Clock.currentTimeMillis
          last = { done, total, detail }
          drawn = false
          const every = interactive ? 100 : plainEvery
          if (now - lastDraw < every && (total === undefined || done < total || !interactive)) return
          lastDraw = now
          drawn = true
          yield* draw(line(now))
        }),
      finish: Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        if (interactive) yield* Effect.sync(() => process.stderr.write("\n"))
        else if (!drawn) yield* draw(line(now))
        return (now - started) / 1000
      })
    }
  })

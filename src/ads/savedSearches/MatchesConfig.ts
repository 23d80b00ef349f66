import { Config, ConfigError, Duration, Either, Option } from "effect"

/**
 * How long, and how many of, a saved-search query's matches are kept (README, Settings; SPEC-NOTES
 * "One event per account and import; kept matches; a search that matches everything"): a search
 * whose filters every ad meets would otherwise keep every imported ad for ever.
 */
export interface MatchesKept {
  /** A match stored longer ago than this goes. */
  readonly age: Duration.Duration
  /** A query keeps this many of its matches, the most recently found. */
  readonly count: number
}

export const defaultMatchesKept: MatchesKept = { age: Duration.days(90), count: 10_000 }

const ages = { minimum: Duration.hours(1), maximum: Duration.days(3650) }
/** At least an event's 100 ad ids (H3), so the ads an import's event names are still listed. */
const counts = { minimum: 100, maximum: 1_000_000 }

const refusal = "must be age=<duration>,count=<n> such as age=90 days,count=10000 (either part may be left out, " +
  `keeping 90 days or 10000; age from 1 hour to 3650 days, count from ${counts.minimum} to ${counts.maximum})`

/** `age=<duration>,count=<n>`, each part optional (empty: the defaults); what is wrong, else. */
export const parseMatchesKept = (text: string): Either.Either<MatchesKept, string> => {
  let kept = defaultMatchesKept
  const named = new Set<string>()
  for (const part of text.split(",").map((p) => p.trim()).filter((p) => p !== "")) {
    const at = part.indexOf("=")
    const name = part.slice(0, Math.max(at, 0)).trim()
    const value = part.slice(at + 1).trim()
    if (at < 0 || named.has(name)) return Either.left(refusal)
    named.add(name)
    if (name === "age") {
      const age = Duration.decodeUnknown(value)
      if (Option.isNone(age) || !Duration.between(age.value, ages)) return Either.left(refusal)
      kept = { ...kept, age: age.value }
    } else if (name === "count") {
      const count = /^\d+$/.test(value) ? Number(value) : Number.NaN
      if (!(count >= counts.minimum && count <= counts.maximum)) return Either.left(refusal)
      kept = { ...kept, count }
    } else return Either.left(refusal)
  }
  return Either.right(kept)
}

export const matchesKept: Config.Config<MatchesKept> = Config.string("SAVED_SEARCH_MATCHES_KEEP").pipe(
  Config.withDefault(""),
  Config.mapOrFail((text) => Either.mapLeft(parseMatchesKept(text), (reason) => ConfigError.InvalidData(["SAVED_SEARCH_MATCHES_KEEP"], reason)))
)

/** How often each replica prunes the matches past `SAVED_SEARCH_MATCHES_KEEP` (README, Settings). */
export const matchesPruneEvery: Config.Config<Duration.Duration> = Config.duration("SAVED_SEARCH_PRUNE_EVERY").pipe(
  Config.withDefault(Duration.hours(1)),
  Config.validate({
    message: "SAVED_SEARCH_PRUNE_EVERY must be from 1 second to 366 days",
    validation: (every) => Duration.between(every, { minimum: Duration.seconds(1), maximum: Duration.days(366) })
  })
)

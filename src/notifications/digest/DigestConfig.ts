import { Config, Duration } from "effect"

/**
 * How often each replica looks for digests that are due (README, Settings). Digests are due on
 * the hour, so once an hour, on the hour, sends them on time; a longer interval sends them late
 * (each still covers everything since the previous one).
 */
export const digestCheckEvery: Config.Config<Duration.Duration> = Config.duration("DIGEST_CHECK_EVERY").pipe(
  Config.withDefault(Duration.hours(1)),
  Config.validate({
    message: "DIGEST_CHECK_EVERY must be from 1 second to 366 days",
    validation: (every) => Duration.between(every, { minimum: Duration.seconds(1), maximum: Duration.days(366) })
  })
)

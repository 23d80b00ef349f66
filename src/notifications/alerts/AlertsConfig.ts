import { Config, Duration } from "effect"

/** How often each replica turns account events and credit usage into inbox items (README, Settings). */
export const alertsEvery: Config.Config<Duration.Duration> = Config.duration("NOTIFICATION_ALERTS_EVERY").pipe(
  Config.withDefault(Duration.minutes(1)),
  Config.validate({
    message: "NOTIFICATION_ALERTS_EVERY must be from 1 second to 366 days",
    validation: (every) => Duration.between(every, { minimum: Duration.seconds(1), maximum: Duration.days(366) })
  })
)

import { Config, Duration } from "effect"
import type { PlanName } from "../../access/gateway/Api.js"

/** H2: endpoints an account may register on each plan (below Basic no metered route answers). */
export const endpointLimits: Readonly<Record<PlanName, number>> = { free: 0, basic: 3, pro: 10, premium: 25 }

/** The webhook settings, read through `Config` (README, Settings). */
export interface WebhookSettings {
  /** `WEBHOOK_ALLOW_LOOPBACK=true`: http (and https) to a loopback host is allowed; for tests and local development. */
  readonly allowLoopback: boolean
  /**
   * How often each replica looks for due deliveries (`WEBHOOK_POLL_EVERY`, default 2 s). H3's
   * "a new event reaches its endpoints within 15 s" holds for 5 s or less; tests that drive
   * passes by hand set it long.
   */
  readonly pollEvery: Duration.Duration
  /** Deliveries in flight at once, over every replica (`WEBHOOK_MAX_CONCURRENT`). */
  readonly maxConcurrent: number
  /** Deliveries to one endpoint in flight at once, over every replica (`WEBHOOK_MAX_PER_ENDPOINT`). */
  readonly maxPerEndpoint: number
  /**
   * Attempts started for one account in any 60 s, over every replica and all its endpoints
   * (`WEBHOOK_MAX_PER_ACCOUNT_PER_MINUTE`, issue 44): the rest wait their turn, due.
   */
  readonly maxPerAccountPerMinute: number
  /**
   * How long a claimed delivery stays leased past its attempt's 10 s timeout, room to write its
   * outcome (`WEBHOOK_LEASE_MARGIN`, default 30 s): a replica that died mid-attempt holds the
   * delivery and its place in the caps until then. Tests of a killed service set it short.
   */
  readonly leaseMargin: Duration.Duration
}

const positive = (name: string, fallback: number, max: number) =>
  Config.integer(name).pipe(
    Config.withDefault(fallback),
    Config.validate({ message: `${name} must be from 1 to ${max}`, validation: (n) => n >= 1 && n <= max })
  )

export const webhookSettings: Config.Config<WebhookSettings> = Config.all({
  allowLoopback: Config.boolean("WEBHOOK_ALLOW_LOOPBACK").pipe(Config.withDefault(false)),
  pollEvery: Config.duration("WEBHOOK_POLL_EVERY").pipe(
    Config.withDefault(Duration.seconds(2)),
    Config.validate({
      message: "WEBHOOK_POLL_EVERY must be from 100 milliseconds to 366 days",
      validation: (every) => Duration.between(every, { minimum: Duration.millis(100), maximum: Duration.days(366) })
    })
  ),
  maxConcurrent: positive("WEBHOOK_MAX_CONCURRENT", 16, 1000),
  maxPerEndpoint: positive("WEBHOOK_MAX_PER_ENDPOINT", 4, 100),
  maxPerAccountPerMinute: positive("WEBHOOK_MAX_PER_ACCOUNT_PER_MINUTE", 600, 60_000),
  leaseMargin: Config.duration("WEBHOOK_LEASE_MARGIN").pipe(
    Config.withDefault(Duration.seconds(30)),
    Config.validate({
      message: "WEBHOOK_LEASE_MARGIN must be from 1 second to 1 hour",
      validation: (margin) => Duration.between(margin, { minimum: Duration.seconds(1), maximum: Duration.hours(1) })
    })
  )
})

import { Config, Duration } from "effect"

/** The OAuth authorization server's settings (INTERPRETATIONS M4; README, Configuration). */
export interface OAuthSettings {
  /** How long an authorization code may be exchanged (single use). */
  readonly codeTtl: Duration.Duration
  /** How long an access token is accepted. */
  readonly accessTokenTtl: Duration.Duration
  /** How long a refresh token may be exchanged (each exchange rotates it). */
  readonly refreshTokenTtl: Duration.Duration
  /** Clients registered in the last day and never authorized, at most (registration is open to anyone). */
  readonly maxPendingClients: number
  /** Clients one client address may register a day (issue 28: no one address uses up the server's). */
  readonly registrationsPerAddress: number
}

const positive = (name: string, fallback: Duration.Duration): Config.Config<Duration.Duration> =>
  Config.duration(name).pipe(
    Config.withDefault(fallback),
    Config.validate({ message: `${name} must be positive`, validation: (d: Duration.Duration) => Duration.greaterThan(d, Duration.zero) })
  )

export const oauthSettings: Config.Config<OAuthSettings> = Config.all({
  codeTtl: positive("OAUTH_CODE_TTL", Duration.seconds(60)),
  accessTokenTtl: positive("OAUTH_ACCESS_TOKEN_TTL", Duration.hours(1)),
  refreshTokenTtl: positive("OAUTH_REFRESH_TOKEN_TTL", Duration.days(30)),
  maxPendingClients: Config.integer("OAUTH_MAX_PENDING_CLIENTS").pipe(
    Config.withDefault(1000),
    Config.validate({ message: "OAUTH_MAX_PENDING_CLIENTS must be from 1 to 1000000", validation: (n) => n >= 1 && n <= 1_000_000 })
  ),
  registrationsPerAddress: Config.integer("OAUTH_REGISTRATIONS_PER_ADDRESS").pipe(
    Config.withDefault(20),
    Config.validate({ message: "OAUTH_REGISTRATIONS_PER_ADDRESS must be from 1 to 100000", validation: (n) => n >= 1 && n <= 100_000 })
  )
})

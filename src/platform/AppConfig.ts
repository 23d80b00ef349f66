import { Config, ConfigError, ConfigProvider, Context, Duration, Effect, Either, Layer, Option, Redacted } from "effect"
import { parseTrustProxy, type TrustProxy } from "./Forwarded.js"

/**
 * Service-wide settings, read only through Effect `Config` (secrets as `Redacted`).
 * Database settings live with the database layer, the key secret with `KeySealer`.
 */
/** An optional setting; empty counts as unset (compose files pass `${NAME:-}`). */
export const optionalSetting = (name: string): Config.Config<Option.Option<string>> =>
  Config.option(Config.string(name)).pipe(Config.map(Option.filter((text) => text.trim() !== "")))

/** An optional http(s) URL: anything else is refused at start-up, naming the variable. */
export const optionalHttpUrl = (name: string, example: string): Config.Config<Option.Option<URL>> =>
  optionalSetting(name).pipe(
    Config.mapOrFail(Option.match({
      onNone: () => Either.right(Option.none<URL>()),
      onSome: (text) =>
        URL.canParse(text) && /^https?:$/.test(new URL(text).protocol)
          ? Either.right(Option.some(new URL(text)))
          : Either.left(ConfigError.InvalidData([name], `must be an http(s) URL such as ${example}`))
    }))
  )

/** A body size in bytes: from 1 KiB to 1 GiB. */
const byteLimit = (name: string, fallback: number) =>
  Config.integer(name).pipe(
    Config.validate({ message: `${name} must be from 1024 to 1073741824 bytes`, validation: (n) => n >= 1024 && n <= 1024 ** 3 }),
    Config.withDefault(fallback)
  )

export interface AppSettings {
  readonly port: number
  readonly host: string
  /** spec: INTERPRETATIONS G12: `<service name> Basic plan or higher required`. */
  readonly serviceName: string
  /** spec: Errors, credit exhaustion: `purchase.url`. */
  readonly creditPackUrl: string
  /** spec: Limits, Rate (G5). */
  readonly rateLimitPerMinute: number
  /** Calls of one account in flight at once per replica, keys and sessions alike (issue 28)... */
  readonly maxCallsInFlight: number
  /** ...and how long a call past that waits for one of them to end before its 429. */
  readonly inFlightWait: Duration.Duration
  /** RPC `Events` streams of one account open at once per replica (issue 44); one more is refused at once... */
  readonly maxStreamsPerAccount: number
  /** ...and how long one stays open before it ends (the client resumes with `after_seq`). */
  readonly streamMaxLifetime: Duration.Duration
  /** The admin API and its routes exist only when this is set. */
  readonly adminToken: Option.Option<Redacted.Redacted>
  /**
   * A charge still open after this long is refunded even though its replica still beats: a
   * ceiling far above any legitimate call (the calls of dead replicas are refunded long before).
   */
  readonly ledgerSweepAfter: Duration.Duration
  readonly ledgerSweepEvery: Duration.Duration
  /** How often a replica records that it is alive... */
  readonly replicaHeartbeatEvery: Duration.Duration
  /** ...and how old its last heartbeat may be before other replicas take it for dead. */
  readonly replicaHeartbeatTimeout: Duration.Duration
  /** How often the server looks whether the short-video shop's explore rollups still hold. */
  readonly rollupRefreshEvery: Duration.Duration
  /** The largest body `POST /admin/ingest/{entity}` reads. */
  readonly maxImportBytes: number
  /** The largest body any other route reads (JSON, forms, multipart): larger is 413. */
  readonly maxBodyBytes: number
  /** The largest body sign-in, the key page's forms and the admin API read. */
  readonly maxFormBytes: number
  /** A browser session ends after this long without a request... */
  readonly sessionIdleTimeout: Duration.Duration
  /** ...and this long after sign-in in any case. */
  readonly sessionMaxAge: Duration.Duration
  /** Failed sign-ins (per account, per address) before further attempts are locked... */
  readonly loginMaxFailures: number
  /** ...for this long. */
  readonly loginLockout: Duration.Duration
  /**
   * The address browsers reach the service at (`https://adintel.example.com`): the origin
   * state-changing session routes accept, and the base of the key page's `curl` lines. Unset:
   * taken from each request's Host header.
   */
  readonly publicUrl: Option.Option<URL>
  /** The reverse proxies trusted to say the client's address, scheme and host (platform/Forwarded.ts). */
  readonly trustProxy: TrustProxy
}

/** The shortest `ADMIN_TOKEN` taken. */
export const minAdminTokenLength = 32

export const settings: Config.Config<AppSettings> = Config.all({
  port: Config.port("PORT").pipe(Config.withDefault(3000)),
  host: Config.string("HOST").pipe(Config.withDefault("127.0.0.1")),
  serviceName: Config.nonEmptyString("SERVICE_NAME").pipe(Config.withDefault("AdIntel")),
  creditPackUrl: Config.url("CREDIT_PACK_URL").pipe(
    Config.map((url) => url.toString()),
    Config.withDefault("https://adintel.local/billing/credit-packs")
  ),
  rateLimitPerMinute: Config.integer("RATE_LIMIT_PER_MINUTE").pipe(
    Config.validate({ message: "RATE_LIMIT_PER_MINUTE must be between 1 and 100000", validation: (n) => n >= 1 && n <= 100_000 }),
    Config.withDefault(60)
  ),
  maxCallsInFlight: Config.integer("MAX_CALLS_IN_FLIGHT").pipe(
    Config.validate({ message: "MAX_CALLS_IN_FLIGHT must be between 1 and 1000", validation: (n) => n >= 1 && n <= 1000 }),
    Config.withDefault(4)
  ),
  inFlightWait: Config.duration("IN_FLIGHT_WAIT").pipe(Config.withDefault(Duration.seconds(2))),
  maxStreamsPerAccount: Config.integer("MAX_STREAMS_PER_ACCOUNT").pipe(
    Config.validate({ message: "MAX_STREAMS_PER_ACCOUNT must be between 1 and 100", validation: (n) => n >= 1 && n <= 100 }),
    Config.withDefault(3)
  ),
  streamMaxLifetime: Config.duration("STREAM_MAX_LIFETIME").pipe(
    Config.validate({
      message: "STREAM_MAX_LIFETIME must be from 1 second to 24 hours",
      validation: (lifetime) => Duration.between(lifetime, { minimum: Duration.seconds(1), maximum: Duration.hours(24) })
    }),
    Config.withDefault(Duration.hours(1))
  ),
  // A bearer token that opens every account: long enough that guessing is hopeless (issue 28).
  adminToken: Config.option(Config.redacted("ADMIN_TOKEN")).pipe(
    Config.map(Option.filter((token) => Redacted.value(token).length > 0)),
    Config.validate({
      message: `ADMIN_TOKEN must be at least ${minAdminTokenLength} characters (e.g. \`openssl rand -hex 32\`)`,
      validation: (token) => Option.isNone(token) || Redacted.value(token.value).length >= minAdminTokenLength
    })
  ),
  ledgerSweepAfter: Config.duration("LEDGER_SWEEP_AFTER").pipe(Config.withDefault(Duration.hours(6))),
  ledgerSweepEvery: Config.duration("LEDGER_SWEEP_EVERY").pipe(Config.withDefault(Duration.minutes(1))),
  replicaHeartbeatEvery: Config.duration("REPLICA_HEARTBEAT_EVERY").pipe(Config.withDefault(Duration.seconds(10))),
  replicaHeartbeatTimeout: Config.duration("REPLICA_HEARTBEAT_TIMEOUT").pipe(Config.withDefault(Duration.minutes(1))),
  rollupRefreshEvery: Config.duration("ROLLUP_REFRESH_EVERY").pipe(Config.withDefault(Duration.minutes(5))),
  maxImportBytes: Config.integer("MAX_IMPORT_BYTES").pipe(
    Config.validate({ message: "MAX_IMPORT_BYTES must be positive", validation: (n) => n > 0 }),
    Config.withDefault(1024 * 1024 * 1024)
  ),
  maxBodyBytes: byteLimit("MAX_BODY_BYTES", 1024 * 1024),
  maxFormBytes: byteLimit("MAX_FORM_BYTES", 16 * 1024),
  sessionIdleTimeout: Config.duration("SESSION_IDLE_TIMEOUT").pipe(Config.withDefault(Duration.hours(12))),
  sessionMaxAge: Config.duration("SESSION_MAX_AGE").pipe(Config.withDefault(Duration.days(7))),
  loginMaxFailures: Config.integer("LOGIN_MAX_FAILURES").pipe(
    Config.validate({ message: "LOGIN_MAX_FAILURES must be between 1 and 1000", validation: (n) => n >= 1 && n <= 1000 }),
    Config.withDefault(5)
  ),
  loginLockout: Config.duration("LOGIN_LOCKOUT").pipe(Config.withDefault(Duration.minutes(15))),
  publicUrl: optionalHttpUrl("PUBLIC_URL", "https://adintel.example.com"),
  trustProxy: Config.string("TRUST_PROXY").pipe(
    Config.withDefault("false"),
    Config.mapOrFail((text) => Either.mapLeft(parseTrustProxy(text), (reason) => ConfigError.InvalidData(["TRUST_PROXY"], reason)))
  )
}).pipe(
  // A replica that misses one beat (a pause, a slow database) must not pass for dead.
  Config.validate({
    message: "REPLICA_HEARTBEAT_TIMEOUT must be at least twice REPLICA_HEARTBEAT_EVERY",
    validation: (s) => Duration.greaterThanOrEqualTo(s.replicaHeartbeatTimeout, Duration.times(s.replicaHeartbeatEvery, 2))
  })
)

/** No variables at all: what `layerWith` reads the defaults from. */
const emptyProvider = ConfigProvider.fromMap(new Map())

export class AppConfig extends Context.Tag("adintel/AppConfig")<AppConfig, AppSettings>() {
  static readonly layer = Layer.effect(AppConfig, settings)

  /** The defaults, with some settings replaced: what tests and benchmarks start from. */
  static readonly layerWith = (overrides: Partial<AppSettings>) =>
    Layer.effect(
      AppConfig,
      Effect.map(Effect.withConfigProvider(settings, emptyProvider), (defaults) => ({ ...defaults, ...overrides }))
    )
}

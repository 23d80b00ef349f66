import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Duration, Effect, Either, Option } from "effect"
import { settings } from "../src/platform/AppConfig.js"

const read = (env: Record<string, string>) =>
  Effect.either(Effect.withConfigProvider(settings, ConfigProvider.fromMap(new Map(Object.entries(env)))))

describe("configuration (AppConfig)", () => {
  it.effect("PUBLIC_URL: unset or empty is none, an http(s) URL is kept, anything else is refused by name", () =>
    Effect.gen(function*() {
      const unset: Array<Record<string, string>> = [{}, { PUBLIC_URL: "" }, { PUBLIC_URL: "  " }]
      for (const env of unset) {
        const read1 = yield* read(env)
        expect(Either.isRight(read1) && Option.isNone(read1.right.publicUrl)).toBe(true)
      }
      const set = yield* read({ PUBLIC_URL: "https://adintel.example.com/" })
      expect(Either.isRight(set) && Option.getOrThrow(set.right.publicUrl).origin).toBe("https://adintel.example.com")
      for (const bad of ["adintel.example.com", "ftp://adintel.example.com"]) {
        const refused = yield* read({ PUBLIC_URL: bad })
        expect(Either.isLeft(refused) && String(refused.left)).toContain("PUBLIC_URL")
        expect(Either.isLeft(refused) && String(refused.left)).toContain("must be an http(s) URL such as https://adintel.example.com")
      }
    }))

  it.effect("ADMIN_TOKEN: unset or empty is none; shorter than 32 characters is refused, without echoing it", () =>
    Effect.gen(function*() {
      const unsetTokens: ReadonlyArray<Record<string, string>> = [{}, { ADMIN_TOKEN: "" }]
      for (const env of unsetTokens) {
        const unset = yield* read(env)
        expect(Either.isRight(unset) && Option.isNone(unset.right.adminToken)).toBe(true)
      }
      const short = "a-31-character-admin-token-xxxx"
      expect(short.length).toBe(31)
      const refused = yield* read({ ADMIN_TOKEN: short })
      expect(Either.isLeft(refused) && String(refused.left)).toContain("ADMIN_TOKEN must be at least 32 characters")
      expect(Either.isLeft(refused) && String(refused.left)).not.toContain(short)
      const long = yield* read({ ADMIN_TOKEN: `${short}y` })
      expect(Either.isRight(long) && Option.isSome(long.right.adminToken)).toBe(true)
    }))

  it.effect("session and sign-in settings have defaults and refuse nonsense", () =>
    Effect.gen(function*() {
      const defaults = yield* read({})
      expect(Either.isRight(defaults) && [defaults.right.loginMaxFailures, defaults.right.trustProxy]).toEqual([5, false])
      const refused = yield* read({ LOGIN_MAX_FAILURES: "0" })
      expect(Either.isLeft(refused) && String(refused.left)).toContain("LOGIN_MAX_FAILURES must be between 1 and 1000")
    }))

  it.effect("replica heartbeat and sweep settings: defaults, and a timeout shorter than two beats is refused", () =>
    Effect.gen(function*() {
      const defaults = yield* read({})
      expect(Either.isRight(defaults) && [
        Duration.toMillis(defaults.right.replicaHeartbeatEvery),
        Duration.toMillis(defaults.right.replicaHeartbeatTimeout),
        Duration.toMillis(defaults.right.ledgerSweepAfter)
      ]).toEqual([10_000, 60_000, 6 * 3_600_000])
      const refused = yield* read({ REPLICA_HEARTBEAT_EVERY: "30 seconds", REPLICA_HEARTBEAT_TIMEOUT: "45 seconds" })
      expect(Either.isLeft(refused) && String(refused.left)).toContain("REPLICA_HEARTBEAT_TIMEOUT must be at least twice REPLICA_HEARTBEAT_EVERY")
    }))
})

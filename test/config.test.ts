import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Duration, Effect, Either, Option } from "effect"
import { parseCidr } from "../src/platform/Addresses.js"
import { settings } from "../src/platform/AppConfig.js"
import { forwardedOf, TrustProxy } from "../src/platform/Forwarded.js"

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

  it.effect("TRUST_PROXY: false, true (one hop), a number of hops, or proxies' addresses and ranges; nonsense refused by name", () =>
    Effect.gen(function*() {
      const trust = (value: string) => Effect.map(read({ TRUST_PROXY: value }), Either.map((s) => s.trustProxy))
      expect(yield* trust("false")).toEqual(Either.right(TrustProxy.none))
      expect(yield* trust("true")).toEqual(Either.right(TrustProxy.hops(1)))
      expect(yield* trust("2")).toEqual(Either.right(TrustProxy.hops(2)))
      const listed = yield* trust("10.0.0.0/8, 192.0.2.7,::1")
      expect(Either.isRight(listed) && listed.right._tag === "Proxies" && listed.right.proxies.length).toBe(3)
      for (const [bad, reason] of [["yes", "yes: not true, false"], ["11", "at most 10 hops"], ["10.0.0.0/33", "10.0.0.0/33: not true, false"]]) {
        const refused = yield* read({ TRUST_PROXY: bad! })
        expect(Either.isLeft(refused) && String(refused.left)).toContain("TRUST_PROXY")
        expect(Either.isLeft(refused) && String(refused.left)).toContain(reason)
      }
    }))

  it.effect("the client is the right-most address no trusted proxy added; host and scheme are read at the same depth", () =>
    Effect.sync(() => {
      const request = (forwardedFor: string | undefined, socket = "10.0.0.2", extra: Record<string, string> = {}) => ({
        headers: { ...(forwardedFor === undefined ? {} : { "x-forwarded-for": forwardedFor }), ...extra },
        remoteAddress: Option.some(socket)
      })
      const addressOf = (trust: TrustProxy, forwardedFor: string | undefined, socket?: string) => forwardedOf(request(forwardedFor, socket), trust).address
      // Nothing trusted: the socket, whatever the headers say.
      expect(addressOf(TrustProxy.none, "198.51.100.9")).toBe("10.0.0.2")
      // One hop: the entry the proxy appended; what the client wrote to its left is ignored.
      expect(addressOf(TrustProxy.hops(1), "6.6.6.6, 198.51.100.9")).toBe("198.51.100.9")
      expect(addressOf(TrustProxy.hops(1), undefined)).toBe("10.0.0.2")
      expect(addressOf(TrustProxy.hops(2), "6.6.6.6, 198.51.100.9, 10.0.0.1")).toBe("198.51.100.9")
      expect(addressOf(TrustProxy.hops(5), "198.51.100.9")).toBe("198.51.100.9")
      // Listed proxies: skipped from the right, the first other address is the client.
      const ours = TrustProxy.proxies([parseCidr("10.0.0.0/8")!])
      expect(addressOf(ours, "6.6.6.6, 198.51.100.9, 10.0.0.1")).toBe("198.51.100.9")
      expect(addressOf(ours, "10.9.9.9", "::ffff:10.0.0.2")).toBe("10.9.9.9")
      expect(addressOf(ours, "198.51.100.9", "203.0.113.5")).toBe("203.0.113.5")
      const proxied = forwardedOf(request("6.6.6.6, 198.51.100.9", "10.0.0.2", {
        "x-forwarded-host": "evil.example, adintel.example.com",
        "x-forwarded-proto": "http, https"
      }), TrustProxy.hops(1))
      expect([proxied.host, proxied.https]).toEqual([Option.some("adintel.example.com"), true])
      const junk = forwardedOf(request("198.51.100.9", "10.0.0.2", { "x-forwarded-host": "a b<c>" }), TrustProxy.hops(1))
      expect(junk.host).toEqual(Option.none())
    }))

  it.effect("session and sign-in settings have defaults and refuse nonsense", () =>
    Effect.gen(function*() {
      const defaults = yield* read({})
      expect(Either.isRight(defaults) && [defaults.right.loginMaxFailures, defaults.right.trustProxy]).toEqual([5, TrustProxy.none])
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

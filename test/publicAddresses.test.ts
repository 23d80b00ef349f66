import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Duration, Effect, Either, Option } from "effect"
import { parseIp } from "../src/platform/Addresses.js"
import { refusedKind, resolverSettings } from "../src/platform/PublicAddresses.js"

/**
 * Which addresses an outbound request for a user (webhook deliveries, media fetching) may reach
 * (issue 28, issue 44): each address of the table with the reason it is refused, or none when
 * it is public.
 */

describe("public addresses (SSRF)", () => {
  it("every refused range names its kind; public addresses, the IPv4 inside NAT64 and mapped forms included, pass", () => {
    const table: ReadonlyArray<readonly [string, string | undefined]> = [
      ["0.0.0.0", "unspecified"],
      ["127.0.0.1", "loopback"],
      ["10.1.2.3", "private"],
      ["172.31.255.1", "private"],
      ["192.168.1.10", "private"],
      ["169.254.169.254", "link-local"],
      ["100.64.0.1", "shared (CGNAT)"],
      ["192.0.0.8", "reserved"],
      ["198.18.0.1", "reserved"],
      ["224.0.0.1", "multicast"],
      ["255.255.255.255", "reserved"],
      ["::", "unspecified"],
      ["::1", "loopback"],
      ["::a00:1", "reserved"],
      ["fd00:ec2::254", "private"],
      ["fec0::1", "private"],
      ["fe80::1%eth0", "link-local"],
      ["ff02::1", "multicast"],
      // IPv4-mapped and NAT64 (RFC 6052) forms are judged by the IPv4 they carry.
      ["::ffff:127.0.0.1", "loopback"],
      ["::ffff:a9fe:a9fe", "link-local"],
      ["64:ff9b::a9fe:a9fe", "link-local"],
      ["64:ff9b::808:808", undefined],
      // Issue 44: 6to4, Teredo and local-use NAT64 are refused whatever they carry.
      ["2002:a9fe:a9fe::1", "6to4"],
      ["2002:808:808::1", "6to4"],
      ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "Teredo"],
      ["2001:0:ffff:ffff:ffff:ffff:ffff:ffff", "Teredo"],
      ["64:ff9b:1::a9fe:a9fe", "NAT64 (local use)"],
      ["64:ff9b:1:ffff::808:808", "NAT64 (local use)"],
      // Public, and the ranges' neighbours.
      ["1.1.1.1", undefined],
      ["192.0.2.1", undefined],
      ["2001:db8::1", undefined], // documentation, next to Teredo's 2001::/32
      ["2001:1::1", undefined],
      ["2003::1", undefined], // next to 6to4
      ["64:ff9b:2::1", undefined], // next to local-use NAT64
      ["2606:4700:4700::1111", undefined]
    ]
    const kinds = table.map(([address]) => [address, refusedKind(parseIp(address)!)])
    expect(kinds).toEqual(table)
  })

  it.effect("DNS_SERVERS and DNS_TIMEOUT: defaults, the resolver's own forms, and what it cannot take refused by name", () =>
    Effect.gen(function*() {
      const read = (env: Record<string, string>) =>
        Effect.either(Effect.withConfigProvider(resolverSettings, ConfigProvider.fromMap(new Map(Object.entries(env)))))
      const shown = (env: Record<string, string>) =>
        Effect.map(read(env), Either.match({
          onLeft: (error) => String(error),
          onRight: ({ servers, timeout }) => [Option.getOrNull(servers), Duration.toMillis(timeout)]
        }))
      expect(yield* shown({})).toEqual([null, 5000])
      expect(yield* shown({ DNS_SERVERS: " 10.0.0.2, 127.0.0.1:5353 ,[::1]:53", DNS_TIMEOUT: "10 seconds" }))
        .toEqual([["10.0.0.2", "127.0.0.1:5353", "[::1]:53"], 10_000])
      expect(yield* shown({ DNS_TIMEOUT: "100 millis" })).toEqual([null, 100])
      expect(yield* shown({ DNS_SERVERS: "dns.example.com" })).toContain("DNS_SERVERS must be addresses such as 10.0.0.2 or 10.0.0.2:53")
      for (const timeout of ["99 millis", "11 seconds"]) {
        expect(yield* shown({ DNS_TIMEOUT: timeout })).toContain("DNS_TIMEOUT must be from 100 milliseconds to 10 seconds")
      }
    }))
})

import * as dns from "node:dns"
import { isIP, type LookupFunction } from "node:net"
import { Config, ConfigError, Duration, Effect, Either, identity, Option } from "effect"
import { type Cidr, contains, type Ip, parseCidr, parseIp } from "./Addresses.js"
import { optionalSetting } from "./AppConfig.js"

/**
 * Which addresses an outbound request made for a user (media fetching, webhook deliveries) may
 * reach (SSRF, issue 28): public internet addresses only, unless an allow-list says otherwise;
 * every resolved address checked, and the connection pinned to the checked addresses so a
 * second look-up (DNS rebinding) cannot swap them.
 */

/** What no request may reach unless allowed; the first matching row names the reason. */
const refusedRanges = ([
  ["0.0.0.0/8", "unspecified"],
  ["127.0.0.0/8", "loopback"],
  ["10.0.0.0/8", "private"],
  ["172.16.0.0/12", "private"],
  ["192.168.0.0/16", "private"],
  ["169.254.0.0/16", "link-local"],
  ["100.64.0.0/10", "shared (CGNAT)"],
  ["192.0.0.0/24", "reserved"],
  ["198.18.0.0/15", "reserved"],
  ["224.0.0.0/4", "multicast"],
  ["240.0.0.0/4", "reserved"],
  ["::/128", "unspecified"],
  ["::1/128", "loopback"],
  ["::/96", "reserved"], // IPv4-compatible, deprecated
  ["fc00::/7", "private"],
  ["fec0::/10", "private"], // site-local, deprecated
  ["fe80::/10", "link-local"],
  ["ff00::/8", "multicast"],
  // Transition ranges that reach an IPv4 address through a relay or translator: refused rather
  // than decoded (issue 44). 6to4 (RFC 7526: deprecated) carries an IPv4 in bits 16-47, Teredo
  // its client's (inverted) in the last 32 bits; no receiver we send to lives there.
  ["2002::/16", "6to4"],
  ["2001::/32", "Teredo"],
  ["64:ff9b:1::/48", "NAT64 (local use)"] // RFC 8215: a network's own translator
] as const).map(([range, kind]) => [parseCidr(range)!, kind] as const)

/** IPv6 ranges that carry an IPv4 address in their low 32 bits: IPv4-mapped and NAT64. */
const embeddingV4 = ["::ffff:0:0/96", "64:ff9b::/96"].map((range) => parseCidr(range)!)

/** Cloud metadata services' names: refused whatever they resolve to (their addresses are link-local or private anyway). */
const metadataHosts = new Set(["metadata.google.internal", "metadata", "instance-data", "instance-data.ec2.internal"])

/** Why an address may not be reached, or undefined when it is public. */
export const refusedKind = (ip: Ip): string | undefined => {
  if (embeddingV4.some((range) => contains(range, ip))) return refusedKind({ v6: false, n: ip.n & 0xffffffffn })
  return refusedRanges.find(([range]) => contains(range, ip))?.[1]
}

/** Hosts and ranges reached even though not public. */
export interface AllowList {
  readonly hosts: ReadonlySet<string>
  readonly ranges: ReadonlyArray<Cidr>
}

export const allowNothing: AllowList = { hosts: new Set(), ranges: [] }

const hostName = /^[a-z0-9_-]+(\.[a-z0-9_-]+)*\.?$/i
export const normalHost = (host: string) => host.toLowerCase().replace(/\.$/, "")

/** A URL's host without the brackets of an IPv6 literal. */
export const bareHost = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, "$1")

/** Splits an allow-list into host names and ranges; the entries that are neither, on the left. */
export const parseAllowList = (entries: ReadonlyArray<string>): Either.Either<AllowList, ReadonlyArray<string>> => {
  const hosts = new Set<string>()
  const ranges: Array<Cidr> = []
  const bad: Array<string> = []
  for (const entry of entries) {
    const range = parseCidr(entry)
    if (range) ranges.push(range)
    else if (hostName.test(entry)) hosts.add(normalHost(entry))
    else bad.push(entry)
  }
  return bad.length > 0 ? Either.left(bad) : Either.right({ hosts, ranges })
}

/** Why a host may not be reached: it does not resolve, or one of its addresses is not public. */
export type AddressRefusal =
  | { readonly _tag: "Unresolved"; readonly host: string }
  | { readonly _tag: "NotPublic"; readonly host: string; readonly address: string; readonly kind: string }

/** The name servers asked and how long a look-up may take (`DNS_SERVERS`, `DNS_TIMEOUT`; README, Settings). */
export interface ResolverSettings {
  /** `host`, `host:port` or `[v6]:port` entries; none: the system's (`/etc/resolv.conf`). */
  readonly servers: Option.Option<ReadonlyArray<string>>
  /** The whole look-up, both families at once: past it the host does not resolve. */
  readonly timeout: Duration.Duration
}

export const resolverSettings: Config.Config<ResolverSettings> = Config.all({
  servers: optionalSetting("DNS_SERVERS").pipe(
    Config.map(Option.map((text) => text.split(",").map((entry) => entry.trim()).filter((entry) => entry !== ""))),
    Config.mapOrFail((servers): Either.Either<Option.Option<ReadonlyArray<string>>, ConfigError.ConfigError> => {
      if (Option.isNone(servers)) return Either.right(servers)
      // The resolver's own parser says what it takes: an address, with a port or without.
      try {
        new dns.Resolver().setServers(servers.value)
        return Either.right(servers)
      } catch {
        return Either.left(ConfigError.InvalidData(["DNS_SERVERS"], "DNS_SERVERS must be addresses such as 10.0.0.2 or 10.0.0.2:53, comma-separated"))
      }
    })
  ),
  timeout: Config.duration("DNS_TIMEOUT").pipe(
    Config.withDefault(Duration.seconds(5)),
    Config.validate({
      // No longer than a webhook attempt or a media fetch (10 s each), which count their look-up.
      message: "DNS_TIMEOUT must be from 100 milliseconds to 10 seconds",
      validation: (timeout) => Duration.between(timeout, { minimum: Duration.millis(100), maximum: Duration.seconds(10) })
    })
  )
})

/**
 * `localhost` is answered without asking (c-ares reads no hosts file, and RFC 6761 says a name
 * server should not be asked it): IPv4 first, as the connection tries them.
 */
const localhost: ReadonlyArray<dns.LookupAddress> = [{ address: "127.0.0.1", family: 4 }, { address: "::1", family: 6 }]

const make = (settings: ResolverSettings) => {
  // c-ares asks the servers in turn, one try each: each gets its share of the deadline.
  const servers = Option.getOrElse(settings.servers, () => dns.getServers())
  const perServerMs = Math.max(1, Math.floor(Duration.toMillis(settings.timeout) / Math.max(1, servers.length)))

  /**
   * One family's addresses (none when it has none, fails or the deadline passes) from c-ares:
   * its own sockets, no thread of libuv's pool (`dns.lookup` held one for as long as a name
   * server kept it waiting), one try, and the query cancelled when the caller gives up.
   */
  const family = (host: string, version: 4 | 6) =>
    Effect.async<ReadonlyArray<dns.LookupAddress>>((resume) => {
      const resolver = new dns.promises.Resolver({ timeout: perServerMs, tries: 1 })
      if (Option.isSome(settings.servers)) resolver.setServers(settings.servers.value)
      const asked = version === 4 ? resolver.resolve4(host) : resolver.resolve6(host)
      asked.then(
        (addresses) => resume(Effect.succeed(addresses.map((address) => ({ address, family: version })))),
        () => resume(Effect.succeed([]))
      )
      return Effect.sync(() => resolver.cancel())
    }).pipe(Effect.timeoutTo({ duration: settings.timeout, onSuccess: identity, onTimeout: () => [] }))

  /** Every address of `host`, IPv4 and IPv6 asked at once; none within `DNS_TIMEOUT`: unresolved. */
  const resolve = (host: string): Effect.Effect<ReadonlyArray<dns.LookupAddress>, AddressRefusal> =>
    normalHost(host) === "localhost"
      ? Effect.succeed(localhost)
      : Effect.flatMap(
        Effect.all([family(host, 4), family(host, 6)], { concurrency: 2 }),
        ([v4, v6]) => v4.length + v6.length === 0 ? Effect.fail({ _tag: "Unresolved", host }) : Effect.succeed([...v4, ...v6])
      )

  return {
    /**
     * The addresses `url` may be reached at (empty for an IP literal: nothing to resolve,
     * nothing to pin). Every address must pass, or a name with one public and one private
     * address would win. (The span options are `serviceSpan`'s, spelled out: telemetry/
     * depends on this folder, not the other way.)
     */
    checked: Effect.fn("PublicAddresses.checked", { captureStackTrace: false })(function*(url: URL, allow: AllowList): Effect.fn.Return<ReadonlyArray<dns.LookupAddress>, AddressRefusal> {
      const host = bareHost(url)
      const literal = isIP(host) !== 0
      const allowedHost = allow.hosts.has(normalHost(host))
      if (metadataHosts.has(normalHost(host)) && !allowedHost) {
        return yield* Effect.fail<AddressRefusal>({ _tag: "NotPublic", host, address: host, kind: "metadata service" })
      }
      const addresses = literal ? [{ address: host, family: isIP(host) }] : yield* resolve(host)
      for (const { address } of addresses) {
        const ip = parseIp(address)
        const kind = ip ? refusedKind(ip) : "not understood"
        if (!ip || (kind && !allowedHost && !allow.ranges.some((range) => contains(range, ip)))) {
          return yield* Effect.fail<AddressRefusal>({ _tag: "NotPublic", host, address, kind: kind ?? "not understood" })
        }
      }
      return literal ? [] : addresses
    })
  }
}

/**
 * The checks of outbound requests made for a user: the host resolved by `DNS_SERVERS` within
 * `DNS_TIMEOUT`, then every address judged. Webhooks (registration and every attempt) and media
 * fetching share it.
 */
export class PublicAddresses extends Effect.Service<PublicAddresses>()("adintel/PublicAddresses", {
  effect: Effect.map(resolverSettings, make)
}) {}

/**
 * Request options that connect only to `addresses` (checked by `PublicAddresses.checked`): the
 * connection's own look-up is answered with them. None for an IP literal.
 */
export const pinnedTo = (addresses: ReadonlyArray<dns.LookupAddress>): { readonly lookup?: LookupFunction } => {
  if (addresses.length === 0) return {}
  const lookup: LookupFunction = (_host, options, callback) =>
    options.all ? callback(null, [...addresses]) : callback(null, addresses[0]!.address, addresses[0]!.family)
  return { lookup }
}

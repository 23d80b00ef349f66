import * as dns from "node:dns"
import { isIP, type LookupFunction } from "node:net"
import { Effect, Either } from "effect"
import { type Cidr, contains, type Ip, parseCidr, parseIp } from "./Addresses.js"

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

/**
 * The addresses `url` may be reached at (empty for an IP literal: nothing to resolve, nothing to
 * pin). Every address must pass, or a name with one public and one private address would win.
 */
export const checkedAddresses = (url: URL, allow: AllowList): Effect.Effect<ReadonlyArray<dns.LookupAddress>, AddressRefusal> =>
  Effect.gen(function*() {
    const host = bareHost(url)
    const literal = isIP(host) !== 0
    const allowedHost = allow.hosts.has(normalHost(host))
    if (metadataHosts.has(normalHost(host)) && !allowedHost) {
      return yield* Effect.fail<AddressRefusal>({ _tag: "NotPublic", host, address: host, kind: "metadata service" })
    }
    const addresses: ReadonlyArray<dns.LookupAddress> = literal
      ? [{ address: host, family: isIP(host) }]
      : yield* Effect.async<ReadonlyArray<dns.LookupAddress>, AddressRefusal>((resume) =>
        dns.lookup(host, { all: true }, (error, found) =>
          resume(error || found.length === 0 ? Effect.fail({ _tag: "Unresolved", host }) : Effect.succeed(found)))
      )
    for (const { address } of addresses) {
      const ip = parseIp(address)
      const kind = ip ? refusedKind(ip) : "not understood"
      if (!ip || (kind && !allowedHost && !allow.ranges.some((range) => contains(range, ip)))) {
        return yield* Effect.fail<AddressRefusal>({ _tag: "NotPublic", host, address, kind: kind ?? "not understood" })
      }
    }
    return literal ? [] : addresses
  })

/**
 * Request options that connect only to `addresses` (checked by `checkedAddresses`): the
 * connection's own look-up is answered with them. None for an IP literal.
 */
export const pinnedTo = (addresses: ReadonlyArray<dns.LookupAddress>): { readonly lookup?: LookupFunction } => {
  if (addresses.length === 0) return {}
  const lookup: LookupFunction = (_host, options, callback) =>
    options.all ? callback(null, [...addresses]) : callback(null, addresses[0]!.address, addresses[0]!.family)
  return { lookup }
}

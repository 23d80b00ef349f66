import { Either, Option } from "effect"
import { type Cidr, contains, parseCidr, parseIp } from "./Addresses.js"

/**
 * Who sent a request, and where it was addressed, behind reverse proxies (`TRUST_PROXY`, issue
 * 28). Each proxy appends the address it received the request from to `X-Forwarded-For`, so only
 * the right end of the list is written by proxies the service trusts; anything to the left of
 * them is the client's to write. The client is the right-most address no trusted proxy added,
 * and `X-Forwarded-Host` and `-Proto` are read at the same depth.
 */

/** Which proxies in front of the service are trusted. */
export type TrustProxy =
  | { readonly _tag: "None" }
  /** The last `hops` hops (the socket's peer included) are proxies of ours. */
  | { readonly _tag: "Hops"; readonly hops: number }
  /** Hops from these addresses and ranges are proxies of ours. */
  | { readonly _tag: "Proxies"; readonly proxies: ReadonlyArray<Cidr> }

const none: TrustProxy = { _tag: "None" }
export const TrustProxy = {
  none,
  hops: (hops: number): TrustProxy => ({ _tag: "Hops", hops }),
  proxies: (proxies: ReadonlyArray<Cidr>): TrustProxy => ({ _tag: "Proxies", proxies })
}

/** The most hops `TRUST_PROXY` may count: more proxies than that in front of one service is a mistake. */
export const maxTrustedHops = 10

/**
 * `TRUST_PROXY`: `false` (or empty), `true` (one proxy: the socket's peer), a number of hops, or
 * the proxies' addresses and CIDR ranges, comma-separated. The error names what is wrong.
 */
export const parseTrustProxy = (text: string): Either.Either<TrustProxy, string> => {
  const value = text.trim().toLowerCase()
  if (value === "" || value === "false" || value === "0") return Either.right(TrustProxy.none)
  if (value === "true") return Either.right(TrustProxy.hops(1))
  if (/^\d+$/.test(value)) {
    const hops = Number(value)
    return hops <= maxTrustedHops ? Either.right(TrustProxy.hops(hops)) : Either.left(`at most ${maxTrustedHops} hops`)
  }
  const entries = value.split(",").map((entry) => entry.trim()).filter((entry) => entry !== "")
  const bad = entries.filter((entry) => parseCidr(entry) === undefined)
  if (bad.length > 0) return Either.left(`${bad.join(", ")}: not true, false, a number of hops, an address or a CIDR range such as 10.0.0.0/8`)
  return Either.right(TrustProxy.proxies(entries.map((entry) => parseCidr(entry)!)))
}

/** A header's comma-separated values, trimmed, empty ones dropped. */
const valuesOf = (header: string | undefined) =>
  header === undefined ? [] : header.split(",").map((value) => value.trim()).filter((value) => value !== "")

/** An IPv4 address written as IPv6 (`::ffff:10.0.0.1`, how dual-stack sockets show it) as IPv4. */
const plainAddress = (address: string) => address.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i, "$1")

const isProxy = (proxies: ReadonlyArray<Cidr>) => (address: string) => {
  const ip = parseIp(plainAddress(address))
  return ip !== undefined && proxies.some((range) => contains(range, ip))
}

/** How many of the right-most hops of `chain` (the socket's peer last) are trusted proxies. */
const trustedHops = (chain: ReadonlyArray<string>, trust: TrustProxy) => {
  switch (trust._tag) {
    case "None":
      return 0
    case "Hops":
      return Math.min(trust.hops, chain.length)
    case "Proxies": {
      const trusted = isProxy(trust.proxies)
      let hops = 0
      while (hops < chain.length && trusted(chain[chain.length - 1 - hops]!)) hops++
      return hops
    }
  }
}

/** A Host header is the client's to write: only a plain `host[:port]` is used. */
const plainHost = /^[A-Za-z0-9.:[\]-]{1,300}$/

/** What the trusted proxies say of a request: the client's address, and the scheme and host it was sent to. */
export interface Forwarded {
  readonly address: string
  readonly https: boolean
  readonly host: Option.Option<string>
}

/** What is read of a request: its headers and its socket's peer (an `HttpServerRequest` is one). */
export interface Request {
  readonly headers: { readonly [name: string]: string | undefined }
  readonly remoteAddress: Option.Option<string>
}

export const forwardedOf = (request: Request, trust: TrustProxy): Forwarded => {
  const socket = Option.getOrElse(request.remoteAddress, () => "unknown")
  const chain = [...valuesOf(request.headers["x-forwarded-for"]), socket]
  const hops = trustedHops(chain, trust)
  // The value the outermost trusted proxy set: as many entries from the right as there are trusted
  // hops (the first, when the proxies replace the header rather than append to it).
  const told = (header: string) => {
    const values = valuesOf(request.headers[header])
    return hops === 0 || values.length === 0 ? undefined : values[Math.max(0, values.length - hops)]
  }
  return {
    // When every hop is a proxy of ours (none told who sent it to them), the left-most is all we know.
    address: chain[Math.max(0, chain.length - 1 - hops)]!,
    https: told("x-forwarded-proto")?.toLowerCase() === "https",
    host: Option.fromNullable(told("x-forwarded-host")).pipe(Option.filter((host) => plainHost.test(host)))
  }
}

/** What the service knows of where it is reached. */
export interface Reach {
  readonly trustProxy: TrustProxy
  readonly publicUrl: Option.Option<URL>
}

/** The client's address: the socket's, or the right-most no trusted proxy added. */
export const clientAddress = (request: Request, reach: Reach) => forwardedOf(request, reach.trustProxy).address

/** Where clients reach the service: `PUBLIC_URL`, else the request's own scheme and host (the trusted proxies'). */
export const baseUrl = (request: Request, reach: Reach) =>
  Option.match(reach.publicUrl, {
    onSome: (url) => url.origin,
    onNone: () => {
      const forwarded = forwardedOf(request, reach.trustProxy)
      const own = request.headers["host"]
      const host = Option.getOrElse(forwarded.host, () => (own !== undefined && plainHost.test(own) ? own : "localhost"))
      return `${forwarded.https ? "https" : "http"}://${host}`
    }
  })

/** Whether a host name is this machine: `localhost` (and its subdomains), 127.0.0.0/8, `::1`. */
const isLoopbackHost = (hostname: string) => {
  const host = hostname.replace(/^\[(.*)\]$/, "$1").toLowerCase()
  if (host === "localhost" || host.endsWith(".localhost")) return true
  const ip = parseIp(plainAddress(host))
  return ip !== undefined && (ip.v6 ? ip.n === 1n : ip.n >> 24n === 127n)
}

/** Whether clients reach the service over plain http on this machine (a developer's `npm start`). */
export const isLoopbackHttp = (request: Request, reach: Reach) => {
  const base = new URL(baseUrl(request, reach))
  return base.protocol === "http:" && isLoopbackHost(base.hostname)
}

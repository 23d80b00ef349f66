import type * as dns from "node:dns"
import { isIP } from "node:net"
import { Effect } from "effect"
import { contains, parseCidr, parseIp } from "../../platform/Addresses.js"
import { type AllowList, allowNothing, bareHost, normalHost, type PublicAddresses } from "../../platform/PublicAddresses.js"

/**
 * Where a webhook may be sent (H2; SSRF, issue 28): https to a public address, or, with
 * `WEBHOOK_ALLOW_LOOPBACK=true`, http or https to a loopback host. Checked at registration and
 * again before every attempt (DNS may change), the attempt then pinned to the checked addresses.
 */

/** A refused URL; `reason` is what the 400 says after `url: `, and what an attempt logs. */
export interface Refused {
  readonly reason: string
}

export const httpsOnly = "must be an https URL"
export const notPublic = "address not allowed: webhooks are sent only to public internet addresses"

const loopbackRanges = ["127.0.0.0/8", "::1/128"].map((range) => parseCidr(range)!)
const loopback: AllowList = { hosts: new Set(["localhost"]), ranges: loopbackRanges }

const isLoopbackHost = (url: URL) => {
  const host = bareHost(url)
  if (isIP(host) === 0) return normalHost(host) === "localhost"
  const ip = parseIp(host)
  return ip !== undefined && loopbackRanges.some((range) => contains(range, ip))
}

/** A checked target: the URL, and the addresses an attempt connects to (none for an IP literal). */
export interface Target {
  readonly url: URL
  readonly addresses: ReadonlyArray<dns.LookupAddress>
}

/**
 * The rules of `allowLoopback` (`WEBHOOK_ALLOW_LOOPBACK`), in two steps: `parse` looks nothing
 * up (registration checks the URL's uniqueness and the plan's cap between the two), `reach`
 * resolves the host. `parse` gives the URL as it is stored and compared (issue 44): WHATWG's
 * serialisation (lower-case scheme and host, no default port, dot segments resolved,
 * percent-encoded) without the fragment, which is never sent.
 */
export const targets = (allowLoopback: boolean, publicAddresses: PublicAddresses) => {
  const allow = allowLoopback ? loopback : allowNothing
  const parse = (text: string): Effect.Effect<URL, Refused> =>
    Effect.gen(function*() {
      if (!URL.canParse(text)) return yield* Effect.fail({ reason: httpsOnly })
      const url = new URL(text)
      const scheme = url.protocol === "https:" || (url.protocol === "http:" && allowLoopback && isLoopbackHost(url))
      if (!scheme) return yield* Effect.fail({ reason: httpsOnly })
      if (url.username !== "" || url.password !== "") return yield* Effect.fail({ reason: "must not carry a user name or password" })
      url.hash = ""
      return url
    })
  const reach = (url: URL): Effect.Effect<Target, Refused> =>
    publicAddresses.checked(url, allow).pipe(
      Effect.mapError((refusal) => refusal._tag === "Unresolved" ? { reason: `cannot resolve host ${refusal.host}` } : { reason: notPublic }),
      Effect.map((addresses) => ({ url, addresses }))
    )
  return { parse, reach, check: (text: string) => Effect.flatMap(parse(text), reach) }
}

import { isIP } from "node:net"

/**
 * IP addresses and ranges (CIDR) as numbers, for the checks that compare them: media fetching's
 * refused ranges and allow-list (PublicAddresses.ts: media fetching, webhook deliveries), trusted proxies (`TRUST_PROXY`).
 */

/** An address as one number: 32 bits for IPv4, 128 for IPv6. */
export interface Ip {
  readonly v6: boolean
  readonly n: bigint
}
export interface Cidr {
  readonly ip: Ip
  readonly bits: number
}

export const parseIp = (text: string): Ip | undefined => {
  const plain = text.replace(/%.*$/, "") // a zone id ("fe80::1%eth0") says nothing about the range
  const version = isIP(plain)
  if (version === 4) return { v6: false, n: plain.split(".").reduce((n, part) => (n << 8n) | BigInt(part), 0n) }
  if (version !== 6) return undefined
  // A trailing dotted quad ("::ffff:1.2.3.4") becomes two groups; "::" fills with zero groups.
  const hex = plain.toLowerCase().replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/, (_, a, b, c, d) =>
    `${((+a << 8) | +b).toString(16)}:${((+c << 8) | +d).toString(16)}`)
  const [head = "", tail] = hex.split("::")
  const groups = (part: string | undefined) => (part ? part.split(":") : [])
  const all = tail === undefined
    ? groups(head)
    : [...groups(head), ...Array<string>(8 - groups(head).length - groups(tail).length).fill("0"), ...groups(tail)]
  return { v6: true, n: all.reduce((n, group) => (n << 16n) | BigInt(`0x${group}`), 0n) }
}

export const parseCidr = (text: string): Cidr | undefined => {
  const [address = "", prefix] = text.split("/")
  const ip = parseIp(address)
  const width = ip?.v6 ? 128 : 32
  const bits = prefix === undefined ? width : /^\d{1,3}$/.test(prefix) ? Number(prefix) : NaN
  return ip && bits >= 0 && bits <= width ? { ip, bits } : undefined
}

export const contains = (range: Cidr, ip: Ip) => {
  const drop = BigInt((ip.v6 ? 128 : 32) - range.bits)
  return range.ip.v6 === ip.v6 && range.ip.n >> drop === ip.n >> drop
}


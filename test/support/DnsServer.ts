import { Context, Effect, Layer, Queue } from "effect"
import * as dgram from "node:dgram"
import { parseIp } from "../../src/platform/Addresses.js"

/**
 * A name server on 127.0.0.1 (UDP) for the service's resolver (`DNS_SERVERS`): each name
 * answers what `names` says (its A and AAAA records, at once or when `release`d), none at all
 * ("drop": the query is read and never answered, as from a name server that drops queries) or
 * NXDOMAIN when not listed. Every
 * query is recorded in `queries` and offered to `received`, so a test waits for queries without
 * polling.
 */

export type NameAnswer =
  | {
    readonly a?: ReadonlyArray<string>
    readonly aaaa?: ReadonlyArray<string>
    /** Queries wait for `release` (a slow name server). */
    readonly held?: boolean
  }
  | "drop"

export interface DnsQuery {
  readonly name: string
  readonly type: "A" | "AAAA" | number
}

export class DnsServer extends Context.Tag("test/DnsServer")<DnsServer, {
  /** `127.0.0.1:<port>`, as `DNS_SERVERS` takes it. */
  readonly address: string
  readonly names: Map<string, NameAnswer>
  readonly queries: Array<DnsQuery>
  readonly received: Queue.Queue<DnsQuery>
  /** Answers the queries held for `name`. */
  readonly release: (name: string) => Effect.Effect<void>
}>() {}

const typeA = 1
const typeAaaa = 28

/** The question's name and where the question ends (after its type and class). */
const question = (message: Buffer) => {
  const labels: Array<string> = []
  let at = 12
  while (message[at]! > 0) {
    labels.push(message.toString("ascii", at + 1, at + 1 + message[at]!))
    at += 1 + message[at]!
  }
  return { name: labels.join(".").toLowerCase(), type: message.readUInt16BE(at + 1), end: at + 5 }
}

/** One resource record answering the question (its name by a pointer to the question's). */
const record = (type: number, data: Buffer) => {
  const head = Buffer.alloc(12)
  head.writeUInt16BE(0xc00c, 0)
  head.writeUInt16BE(type, 2)
  head.writeUInt16BE(1, 4) // IN
  head.writeUInt32BE(60, 6) // TTL
  head.writeUInt16BE(data.length, 10)
  return Buffer.concat([head, data])
}

const addressBytes = (text: string) => {
  const ip = parseIp(text)!
  const size = ip.v6 ? 16 : 4
  return Buffer.from(Array.from({ length: size }, (_, i) => Number((ip.n >> BigInt(8 * (size - 1 - i))) & 0xffn)))
}

/** The answer to `query`: its records (NOERROR, maybe none), or NXDOMAIN for an unknown name. */
const answer = (query: Buffer, answerOf: NameAnswer | undefined) => {
  const { end, type } = question(query)
  const addresses = answerOf === undefined || answerOf === "drop" ? [] : (type === typeA ? answerOf.a : type === typeAaaa ? answerOf.aaaa : []) ?? []
  const head = Buffer.alloc(12)
  query.copy(head, 0, 0, 2) // id
  head.writeUInt16BE(0x8000 | (query.readUInt16BE(2) & 0x0100) | 0x0080 | (answerOf === undefined ? 3 : 0), 2)
  head.writeUInt16BE(1, 4)
  head.writeUInt16BE(addresses.length, 6)
  return Buffer.concat([head, query.subarray(12, end), ...addresses.map((address) => record(type, addressBytes(address)))])
}

export const DnsServerLive = Layer.scoped(
  DnsServer,
  Effect.gen(function*() {
    const names = new Map<string, NameAnswer>()
    const queries: Array<DnsQuery> = []
    const received = yield* Queue.unbounded<DnsQuery>()
    const socket = dgram.createSocket("udp4")
    const held: Array<{ readonly name: string; readonly message: Buffer; readonly from: dgram.RemoteInfo }> = []
    const reply = (message: Buffer, from: dgram.RemoteInfo, answerOf: NameAnswer | undefined) =>
      socket.send(answer(message, answerOf), from.port, from.address)
    socket.on("message", (message, from) => {
      const { name, type } = question(message)
      const query = { name, type: type === typeA ? "A" as const : type === typeAaaa ? "AAAA" as const : type }
      queries.push(query)
      Queue.unsafeOffer(received, query)
      const answerOf = names.get(name)
      if (answerOf === "drop") return
      if (answerOf?.held) held.push({ name, message, from })
      else reply(message, from, answerOf)
    })
    yield* Effect.acquireRelease(
      Effect.async<void>((resume) => void socket.bind(0, "127.0.0.1", () => resume(Effect.void))),
      () => Effect.sync(() => socket.close())
    )
    const release = (name: string) =>
      Effect.sync(() => {
        for (const query of held.filter((q) => q.name === name)) {
          held.splice(held.indexOf(query), 1)
          reply(query.message, query.from, names.get(name))
        }
      })
    return { address: `127.0.0.1:${socket.address().port}`, names, queries, received, release }
  })
)

/** The next `n` queries the server got for names `matching`. */
export const nextQueries = (matching: (name: string) => boolean, n: number) =>
  Effect.gen(function*() {
    const { received } = yield* DnsServer
    const got: Array<DnsQuery> = []
    while (got.length < n) {
      const query = yield* Queue.take(received)
      if (matching(query.name)) got.push(query)
    }
    return got
  })

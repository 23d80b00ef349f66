import { Context, Effect, Layer, Queue } from "effect"
import type { AddressInfo } from "node:net"
import { SMTPServer } from "smtp-server"

/** A message as the SMTP server received it: the envelope and the raw RFC 5322 text. */
export interface ReceivedMail {
  readonly from: string
  readonly to: ReadonlyArray<string>
  readonly raw: string
}

/** A real SMTP server on a free loopback port (the `smtp-server` package), and what it received. */
export class TestSmtp extends Context.Tag("test/TestSmtp")<TestSmtp, {
  /** What `SMTP_URL` is set to. */
  readonly url: string
  /** Every message, in the order it arrived (offered before the server answers the DATA command). */
  readonly received: Queue.Queue<ReceivedMail>
}>() {}

export interface TestSmtpOptions {
  /**
   * Recipients the server refuses at `RCPT TO` with a permanent 550 whose text quotes the
   * address, as real servers do (`550 5.1.1 <who@example.com>: Recipient address rejected`).
   */
  readonly refuse?: (address: string) => boolean
}

/** The server, refusing the recipients `options.refuse` names. */
export const testSmtp = (options: TestSmtpOptions = {}) => Layer.scoped(
  TestSmtp,
  Effect.gen(function*() {
    const received = yield* Queue.unbounded<ReceivedMail>()
    const server = yield* Effect.acquireRelease(
      Effect.async<SMTPServer>((resume) => {
        const smtp: SMTPServer = new SMTPServer({
          authOptional: true,
          disabledCommands: ["STARTTLS", "AUTH"],
          logger: false,
          onRcptTo(address, _session, callback) {
            if (options.refuse?.(address.address) !== true) return callback()
            callback(Object.assign(new Error(`5.1.1 <${address.address}>: Recipient address rejected: User unknown`), { responseCode: 550 }))
          },
          onData(stream, session, callback) {
            const chunks: Array<Buffer> = []
            stream.on("data", (chunk: Buffer) => chunks.push(chunk))
            stream.on("end", () => {
              Queue.unsafeOffer(received, {
                from: session.envelope.mailFrom === false ? "" : session.envelope.mailFrom.address,
                to: session.envelope.rcptTo.map((r) => r.address),
                raw: Buffer.concat(chunks).toString("utf8")
              })
              callback()
            })
          }
        })
        smtp.listen(0, "127.0.0.1", () => resume(Effect.succeed(smtp)))
      }),
      (smtp) => Effect.async<void>((resume) => smtp.close(() => resume(Effect.void)))
    )
    const { port } = server.server.address() as AddressInfo
    return { url: `smtp://127.0.0.1:${port}`, received }
  })
)

export const TestSmtpLive = testSmtp()

/** The part of a multipart message with this content type, decoded (quoted-printable or base64). */
export const mimePart = (raw: string, contentType: string): string | undefined => {
  const boundary = /boundary="?([^";\r\n]+)"?/i.exec(raw)?.[1]
  const parts = boundary === undefined ? [raw] : raw.split(`--${boundary}`)
  const part = parts.find((p) => new RegExp(`^content-type:\\s*${contentType.replace("/", "\\/")}`, "im").test(p))
  if (part === undefined) return undefined
  const split = part.search(/\r?\n\r?\n/)
  const headers = part.slice(0, split)
  const body = part.slice(split).replace(/^\r?\n\r?\n/, "").replace(/\r?\n$/, "")
  const encoding = /^content-transfer-encoding:\s*(\S+)/im.exec(headers)?.[1]?.toLowerCase()
  if (encoding === "base64") return Buffer.from(body.replace(/\s+/g, ""), "base64").toString("utf8")
  if (encoding === "quoted-printable") {
    const text = body.replace(/=\r?\n/g, "")
    const bytes: Array<number> = []
    for (let i = 0; i < text.length; i++) {
      const hex = text.slice(i + 1, i + 3)
      if (text[i] === "=" && /^[0-9A-F]{2}$/i.test(hex)) {
        bytes.push(parseInt(hex, 16))
        i += 2
      } else bytes.push(...Buffer.from(text[i]!, "utf8"))
    }
    return Buffer.from(bytes).toString("utf8")
  }
  return body
}

/** A header of the message's top part, unfolded. */
export const mailHeader = (raw: string, name: string): string | undefined => {
  const head = raw.slice(0, raw.search(/\r?\n\r?\n/)).replace(/\r?\n[ \t]+/g, " ")
  return new RegExp(`^${name}:\\s*(.*)$`, "im").exec(head)?.[1]
}

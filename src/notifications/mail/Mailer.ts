import { Data, Effect, Option, Redacted } from "effect"
import nodemailer from "nodemailer"
import { errorCodeOf, isJsonObject } from "../../kernel/Guards.js"
import { mailSettings } from "./MailConfig.js"
import { serviceSpan } from "../../platform/telemetry/Tracing.js"

/** One e-mail: a plain-text part and an HTML part of the same content. */
export interface MailMessage {
  readonly to: string
  readonly subject: string
  readonly text: string
  readonly html: string
}

/**
 * Why a message was not sent, a closed set (SPEC-NOTES, "Mail failures as reason codes"): never
 * the server's text, which quotes addresses (`550 5.1.1 <who@example.com>: ...`), nor the URL.
 */
export type MailFailure =
  | "rejected"
  | "refused_sender"
  | "refused_message"
  | "deferred"
  | "auth_failed"
  | "unreachable"
  | "timeout"
  | "tls"
  | "protocol"
  | "unknown"

/** The server refused the message or could not be reached, by reason code only. */
export class MailFailed extends Data.TaggedError("MailFailed")<{ readonly reason: MailFailure }> {
  override get message() {
    return `The mail server refused the message: ${this.reason}`
  }
}

/** A field of a failure nodemailer threw, when it has that type. */
const field = <A>(error: unknown, name: string, is: (value: unknown) => value is A): A | undefined => {
  const value = isJsonObject(error) ? error[name] : undefined
  return is(value) ? value : undefined
}
const isNumber = (value: unknown): value is number => typeof value === "number"
const isString = (value: unknown): value is string => typeof value === "string"

/** Transport codes of nodemailer (its `errors.js`) that say the server was never reached or went away. */
const unreachable = new Set(["ECONNECTION", "ESOCKET", "EDNS", "EPROXY", "ECONNREFUSED", "ECONNRESET", "ENOTFOUND", "EHOSTUNREACH"])

/**
 * A nodemailer failure's reason code: by the server's reply (4xx deferred; 5xx by the command it
 * answered), else by the transport's code. Reads the numbers and names only, never the text.
 */
export const mailFailureOf = (error: unknown): MailFailure => {
  const code = errorCodeOf(error)
  const reply = field(error, "responseCode", isNumber)
  const command = field(error, "command", isString) ?? ""
  if (code === "EAUTH" || code === "ENOAUTH" || command.startsWith("AUTH")) return "auth_failed"
  if (reply !== undefined && reply >= 400 && reply < 500) return "deferred"
  if (reply !== undefined && reply >= 500) {
    return command === "RCPT TO" ? "rejected" : command === "MAIL FROM" ? "refused_sender" : "refused_message"
  }
  if (code === "ETIMEDOUT") return "timeout"
  if (code === "ETLS" || code === "EREQUIRETLS") return "tls"
  if (code === "EPROTOCOL") return "protocol"
  if (code === "EMESSAGE") return "refused_message"
  return code !== undefined && unreachable.has(code) ? "unreachable" : "unknown"
}

/** Bounds on one delivery: a stuck server must not hold a digest forever. */
const timeouts = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 }

/**
 * Sends e-mail through the SMTP server of `SMTP_URL` with nodemailer; without it `enabled` is
 * false and nothing is sent (digests then reach the inbox only).
 */
export class Mailer extends Effect.Service<Mailer>()("adintel/Mailer", {
  scoped: Effect.gen(function*() {
    const settings = yield* mailSettings
    if (Option.isNone(settings.smtpUrl)) {
      return { enabled: false, send: (_: MailMessage): Effect.Effect<void, MailFailed> => Effect.void }
    }
    const url = Redacted.value(settings.smtpUrl.value).trim()
    const transport = yield* Effect.acquireRelease(
      Effect.sync(() => nodemailer.createTransport({ url, ...timeouts })),
      (transport) => Effect.sync(() => transport.close())
    )
    return {
      enabled: true,
      send: Effect.fn("Mailer.send", serviceSpan)((message: MailMessage): Effect.Effect<void, MailFailed> =>
        Effect.tryPromise({
          try: () => transport.sendMail({ from: settings.from, ...message }),
          catch: (error) => new MailFailed({ reason: mailFailureOf(error) })
        }).pipe(
          // The code on the span too, where a trace search finds it; the server's text goes nowhere.
          Effect.tapError((failed) => Effect.annotateCurrentSpan("adintel.mail.failure", failed.reason)),
          Effect.asVoid
        ))
    }
  })
}) {}

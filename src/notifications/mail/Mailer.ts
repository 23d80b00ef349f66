import { Data, Effect, Option, Redacted } from "effect"
import nodemailer from "nodemailer"
import { mailSettings } from "./MailConfig.js"
import { serviceSpan } from "../../platform/telemetry/Tracing.js"

/** One e-mail: a plain-text part and an HTML part of the same content. */
export interface MailMessage {
  readonly to: string
  readonly subject: string
  readonly text: string
  readonly html: string
}

/** The server refused the message or could not be reached; the reason never holds the URL's password. */
export class MailFailed extends Data.TaggedError("MailFailed")<{ readonly reason: string }> {}

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
          catch: (error) => new MailFailed({ reason: error instanceof Error ? error.message : "unknown failure" })
        }).pipe(Effect.asVoid))
    }
  })
}) {}

import { SqlClient } from "@effect/sql"
import { describe, expect, it, layer } from "@effect/vitest"
import { Clock, Effect, Layer, TestClock } from "effect"
import { Ingest } from "../src/ingest/Ingest.js"
import { Digests } from "../src/notifications/digest/Digests.js"
import { mailFailureOf } from "../src/notifications/mail/Mailer.js"
import { accountHash } from "../src/platform/telemetry/Tracing.js"
import { advertiser, ingestBrands } from "./support/BrandWorld.js"
import { attribute, exported, OtlpReceiver, OtlpReceiverLive, OtlpTracingLive } from "./support/OtlpReceiver.js"
import { TestDatabase } from "./support/TestDatabase.js"
import { account, sendJson, testServer } from "./support/TestServer.js"
import { TestSmtp, testSmtp } from "./support/TestSmtp.js"

/**
 * Mail failures in telemetry (issue 44): a refused digest e-mail is told to traces by a fixed
 * reason code, never by the server's text (an SMTP 550 quotes the address), and the digest's log
 * names its account by hash. A real SMTP server refuses the recipient; a real OTLP receiver
 * takes what the service exports.
 */

const MINUTE = 60_000
const refused = (address: string) => address.startsWith("refused-")

/**
 * The clock starts 10 minutes before the 09:00 digest, before the exporter does: every 5 s of
 * TestClock the exporter looks, so each hour moved costs 720 of its turns.
 */
const tenToNine = Layer.effectDiscard(TestClock.setTime(Date.UTC(1970, 0, 1, 8, 50)))

const world = Layer.unwrapEffect(
  Effect.map(TestSmtp, ({ url }) => Layer.mergeAll(testServer({ env: { SMTP_URL: url } }), Ingest.Default))
).pipe(
  Layer.provideMerge(TestDatabase),
  Layer.provide(OtlpTracingLive),
  Layer.provideMerge(Layer.mergeAll(OtlpReceiverLive, testSmtp({ refuse: refused }))),
  Layer.provideMerge(tenToNine)
)

describe("mail failures reach telemetry as reason codes (issue 44)", () => {
  layer(world, { timeout: 60_000 })((it) => {
    it.effect("a digest e-mail refused with 550 quoting the address: the span says `rejected`, the log the account's hash; neither the address nor the account id is exported", () =>
      Effect.gen(function*() {
        const email = `refused-${Date.now()}@example.com`
        const { api_key, id } = yield* account({ email })
        yield* ingestBrands([advertiser("mail-brand", "Mail Brand Co", "mailbrand.example.com")], [])
        expect((yield* sendJson(api_key, "POST", "/api/v1/brands/notifications/prefs", { frequency: "daily", hour_utc: 9, email: true })).status).toBe(200)
        expect((yield* sendJson(api_key, "POST", "/api/v1/brands/follow", { id: "mail-brand" })).status).toBe(200)
        yield* TestClock.adjust(MINUTE)
        yield* ingestBrands([], [{ id: "mail-ad-1", brand: "mail-brand", firstDaysAgo: 0, lastDaysAgo: 0, status: "active", format: "image", domain: "mailbrand.example.com" }])
        yield* TestClock.adjust(Date.UTC(1970, 0, 1, 9) - (yield* Clock.currentTimeMillis))
        expect(yield* (yield* Digests).pass).toBe(1)

        // What the account notices: its digest's e-mail failed (and nothing reached the server).
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql<{ email_status: string }>`select email_status from notification_digests where account_id = ${id}::uuid`
        expect(rows).toEqual([{ email_status: "failed" }])
        expect((yield* (yield* TestSmtp).received.size)).toBe(0)

        const spans = yield* exported((span) => span.name === "Digests.pass")
        const send = spans.find((span) => span.name === "Mailer.send")!
        const exception = send.events?.find((event) => event.name === "exception")
        expect(exception).toBeDefined()
        expect(attribute(exception!, "exception.message")).toBe("The mail server refused the message: rejected")
        expect(attribute(send, "adintel.mail.failure")).toBe("rejected")
        const pass = spans.find((span) => span.name === "Digests.pass")!
        const logged = pass.events?.find((event) => event.name === "Digest e-mail not sent")
        expect(logged).toBeDefined()
        expect(attribute(logged!, "adintel.account")).toBe(accountHash(id))
        expect(attribute(logged!, "adintel.mail.failure")).toBe("rejected")
        for (const body of (yield* OtlpReceiver).bodies) {
          expect(body).not.toContain(email)
          expect(body).not.toContain(id)
        }
      }))
  })
})

describe("mailFailureOf: nodemailer's failures as a closed set of codes", () => {
  const failure = (fields: Record<string, unknown>) => Object.assign(new Error("550 5.1.1 <who@example.com>: rejected"), fields)
  it("by the SMTP reply and the command it answered, else by the transport's code", () => {
    expect([
      failure({ code: "EENVELOPE", responseCode: 550, command: "RCPT TO" }),
      failure({ code: "EENVELOPE", responseCode: 553, command: "MAIL FROM" }),
      failure({ code: "EMESSAGE", responseCode: 554, command: "DATA" }),
      failure({ code: "EENVELOPE", responseCode: 451, command: "RCPT TO" }),
      failure({ code: "EAUTH", responseCode: 535, command: "AUTH PLAIN" }),
      failure({ code: "ECONNECTION", command: "CONN" }),
      failure({ code: "EDNS" }),
      failure({ code: "ETIMEDOUT", command: "CONN" }),
      failure({ code: "ETLS" }),
      failure({ code: "EPROTOCOL" }),
      failure({}),
      "not even an error"
    ].map(mailFailureOf)).toEqual([
      "rejected", "refused_sender", "refused_message", "deferred", "auth_failed", "unreachable", "unreachable", "timeout", "tls", "protocol", "unknown", "unknown"
    ])
  })
})

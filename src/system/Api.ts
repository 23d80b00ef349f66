import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { envelope } from "../kernel/Envelope.js"
import { contractPart } from "../kernel/Contract.js"
import { inProduct } from "../kernel/Products.js"

/** 503 until the database answers and any start-up load (the first demo data) is complete. */
export class NotReady extends Schema.TaggedError<NotReady>()("NotReady", {
  error: Schema.String,
  progress: Schema.optional(Schema.Int).annotations({ description: "Percent done of the start-up load" })
}) {}
export const NotReadyBody = envelope(NotReady, 503)

/** Liveness and readiness for orchestrators: unmetered, no key. */
export class SystemApi extends HttpApiGroup.make("system").annotateContext(inProduct("Service"))
  .add(
    HttpApiEndpoint.get("health", "/health")
      .addSuccess(Schema.Struct({ status: Schema.Literal("ok") }))
      .annotate(OpenApi.Summary, "Liveness: the process answers")
  )
  .add(
    HttpApiEndpoint.get("ready", "/ready")
      .addSuccess(Schema.Struct({
        status: Schema.Literal("ready"),
        engines: Schema.Struct({
          similarity: Schema.String.annotations({ description: "What scores similar ads (magic-ai)" }),
          audio: Schema.String.annotations({ description: "What extracts a video's audio for transcription" }),
          transcription: Schema.String.annotations({ description: "What turns speech into text" }),
          scripts: Schema.String.annotations({ description: "What writes similar scripts" })
        }).annotations({ description: "The engines configuration chose" })
      }))
      .addError(NotReadyBody)
      .annotate(OpenApi.Summary, "Readiness: the database answers and start-up loads are complete")
  )
{}

/** The system's part of the contract (kernel/Contract.ts): its handlers are built against it. */
export class SystemContract extends contractPart().add(SystemApi) {}

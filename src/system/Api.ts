import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { ApiError, envelope } from "../kernel/Envelope.js"
import { contractPart } from "../kernel/Contract.js"
import { inProduct } from "../kernel/Products.js"
import { AdminAuth, operatorOnly } from "../access/accounts/Api.js"
import { McpTool, noTool } from "../kernel/McpTool.js"

/** 503 until the database answers and any start-up load (the first demo data) is complete. */
export class NotReady extends ApiError<NotReady>()("NotReady", {
  error: Schema.String,
  progress: Schema.optional(Schema.Int).annotations({ description: "Percent done of the start-up load" })
}, { status: 503 }) {}
export const NotReadyBody = envelope(NotReady)

/** A read replica's state: its name by position (its URL holds a password), whether it serves reads, its lag, why it is out. */
export const ReplicaStatus = Schema.Struct({
  name: Schema.String.annotations({ description: "replica-<n>: its position in DATABASE_REPLICA_URLS" }),
  healthy: Schema.Boolean.annotations({ description: "Whether it serves research reads now" }),
  lag_ms: Schema.NullOr(Schema.Int).annotations({ description: "Replay lag in milliseconds; null when it could not be read" }),
  reason: Schema.NullOr(Schema.String).annotations({ description: "Why it is out; null when it is in" }),
  checked_at: Schema.NullOr(Schema.String).annotations({ description: "When it was last checked (UTC, ISO 8601)" })
})

/** Liveness and readiness for orchestrators: unmetered, no key. */
export class SystemApi extends HttpApiGroup.make("system").annotateContext(inProduct("Service"))
  .annotate(McpTool, noTool("Probes for operators and load balancers: unmetered, not research"))
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
        }).annotations({ description: "The engines configuration chose" }),
        replicas: Schema.Array(ReplicaStatus).annotations({
          description: "The streaming replicas of DATABASE_REPLICA_URLS as the last lag check found them (R1); one that is out does not make the service unready"
        })
      }))
      .addError(NotReadyBody)
      .annotate(OpenApi.Summary, "Readiness: the database answers and start-up loads are complete")
  )
{}

/** The read replicas for the operator (issue 31, R1): the admin token, like the rest of the admin API. */
export class SystemAdminApi extends HttpApiGroup.make("systemAdmin").annotateContext(inProduct("Admin"))
  .annotate(McpTool, operatorOnly)
  .add(
    HttpApiEndpoint.get("replicas", "/admin/replicas")
      .addSuccess(Schema.Struct({ replicas: Schema.Array(ReplicaStatus) }))
      .annotate(OpenApi.Summary, "The read replicas: whether each serves reads, its replay lag, why it is out")
  )
  .middleware(AdminAuth)
  .annotateEndpoints(OpenApi.Transform, (operation) => ({ ...operation, security: [{ AdminToken: [] }] }))
{}

/** The system's part of the contract (kernel/Contract.ts): its handlers are built against it. */
export class SystemContract extends contractPart().add(SystemApi).add(SystemAdminApi) {}

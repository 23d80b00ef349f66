import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Layer, Logger, LogLevel } from "effect"
import { AdminServices, runAdmin } from "./app/Admin.js"
import { AppConfig } from "./platform/AppConfig.js"
import * as Database from "./platform/db/Database.js"

/** The composition root of `npm run admin`: the same services as the server, no HTTP. */
const ServicesLive = AdminServices.pipe(
  Layer.provide(AppConfig.layer),
  Layer.provide(Database.layer),
  Layer.provide(Logger.minimumLogLevel(LogLevel.Warning))
)

runAdmin(process.argv, Layer.mergeAll(ServicesLive, NodeContext.layer)).pipe(NodeRuntime.runMain({ disableErrorReporting: true }))

import { NodeRuntime } from "@effect/platform-node"
import { Layer } from "effect"
import { Accounts } from "./accounts/Accounts.js"
import { AppConfig } from "./AppConfig.js"
import * as Database from "./db/Database.js"
import { DemoAccountLive } from "./Demo.js"
import * as Server from "./Server.js"

/** The composition root: configuration, the database, the server. */
const Main = Layer.mergeAll(Server.layer(), DemoAccountLive.pipe(Layer.provide(Accounts.Default))).pipe(
  Layer.provide(AppConfig.layer),
  Layer.provide(Database.layer)
)

Layer.launch(Main).pipe(NodeRuntime.runMain)

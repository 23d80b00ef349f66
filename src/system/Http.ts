import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { AdIntelApi } from "../Api.js"
import { NotReady } from "./Api.js"
import { SystemRepo } from "./SystemRepo.js"

export const SystemLive = HttpApiBuilder.group(AdIntelApi, "system", (handlers) =>
  Effect.gen(function*() {
    const repo = yield* SystemRepo
    return handlers
      .handle("health", () => Effect.succeed({ status: "ok" as const }))
      .handle("ready", () =>
        Effect.flatMap(repo.ping, (up) =>
          up ? Effect.succeed({ status: "ready" as const }) : Effect.fail(new NotReady({ error: "Database unreachable" }))
        ))
  }))

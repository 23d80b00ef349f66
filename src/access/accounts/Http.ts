import { HttpServerRequest } from "@effect/platform"
import { createHash, timingSafeEqual } from "node:crypto"
import { Effect, Layer, Option, Redacted } from "effect"
import { AdminContract } from "./Api.js"
import { AppConfig } from "../../platform/AppConfig.js"
import { NotFound } from "../../kernel/Errors.js"
import { Unauthorized } from "../gateway/Api.js"
import { Accounts } from "./Accounts.js"
import { AdminAuth } from "./Api.js"
import { serveGroup } from "../gateway/Http.js"

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest()

/** 404 when `ADMIN_TOKEN` is unset (the admin API does not exist); 401 for a wrong token. */
export const AdminAuthLive = Layer.effect(
  AdminAuth,
  Effect.map(AppConfig, ({ adminToken }) => {
    const expected = Option.map(adminToken, (token) => sha256(Redacted.value(token)))
    return Effect.gen(function*() {
      if (Option.isNone(expected)) return yield* Effect.fail(new NotFound({ error: "Not found" }))
      const request = yield* HttpServerRequest.HttpServerRequest
      const token = /^bearer\s+(.+)$/i.exec(request.headers["authorization"]?.trim() ?? "")?.[1]?.trim()
      // Compare digests: constant time, whatever the lengths.
      if (token === undefined || !timingSafeEqual(sha256(token), expected.value)) {
        return yield* Effect.fail(new Unauthorized())
      }
    })
  })
)

export const AdminLive = serveGroup(AdminContract, "admin", (handlers) =>
  Effect.gen(function*() {
    const accounts = yield* Accounts
    return handlers
      .handle("createAccount", ({ payload }) => accounts.create(payload))
      .handle("getAccount", ({ path }) => Effect.flatMap(accounts.idOf(path.id), accounts.view))
      .handle("updateAccount", ({ path, payload }) => Effect.flatMap(accounts.idOf(path.id), (id) => accounts.update(id, payload)))
      .handle("addAddonCredits", ({ path, payload }) =>
        Effect.flatMap(accounts.idOf(path.id), (id) => Effect.map(accounts.addAddonCredits(id, payload.amount), (credits) => ({ credits }))))
      .handle("regenerateKey", ({ path }) =>
        Effect.flatMap(accounts.idOf(path.id), (id) => Effect.map(accounts.regenerateKey(id), (api_key) => ({ api_key }))))
  }))

import { HttpApiEndpoint, HttpApiGroup, HttpApiMiddleware, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { ConflictBody, NotFoundBody } from "../../kernel/Errors.js"
import { CreditBalance, PlanName, UnauthorizedBody } from "../gateway/Api.js"
import { IdPath, IntRange } from "../../kernel/Params.js"
import { contractPart } from "../../kernel/Contract.js"
import { inProduct } from "../../kernel/Products.js"
import { McpTool, noTool } from "../../kernel/McpTool.js"

/**
 * The operator's admin API: enabled only when `ADMIN_TOKEN` is set, authenticated by
 * `Authorization: Bearer <ADMIN_TOKEN>`, never metered.
 */
export class AdminAuth extends HttpApiMiddleware.Tag<AdminAuth>()("adintel/AdminAuth", {
  failure: Schema.Union(UnauthorizedBody, NotFoundBody)
}) {}

export const Email = Schema.Trim.pipe(
  Schema.maxLength(254),
  Schema.pattern(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, { message: () => "must be an e-mail address" })
)

const Count = (max: number) => IntRange(0, max)

/** A password for the browser session (stored as a scrypt hash). */
export const AccountPassword = Schema.String.pipe(Schema.length({ min: 8, max: 200 }, { message: () => "must be 8 to 200 characters" }))

export const CreateAccount = Schema.Struct({
  email: Email,
  password: Schema.optional(AccountPassword),
  plan: PlanName
})
export type CreateAccount = typeof CreateAccount.Type

/** Absent: unchanged. For the three limits, null means "back to the plan's number". */
export const UpdateAccount = Schema.Struct({
  plan: Schema.optional(PlanName),
  monthly_limit: Schema.optional(Schema.NullOr(Count(1_000_000_000))),
  used: Schema.optional(Count(1_000_000_000)),
  addon_remaining: Schema.optional(Count(1_000_000_000)),
  daily_search_limit: Schema.optional(Schema.NullOr(Count(1_000_000))),
  script_generation_limit: Schema.optional(Schema.NullOr(Count(1_000_000)))
})
export type UpdateAccount = typeof UpdateAccount.Type

export const AddonCredits = Schema.Struct({
  amount: IntRange(1, 10_000_000)
})

export const DailySearchView = Schema.Struct({
  used: Schema.Int,
  limit: Schema.NullOr(Schema.Int),
  remaining: Schema.NullOr(Schema.Int),
  unlimited: Schema.Boolean,
  resets_at: Schema.String
})

export const ScriptGenerationsView = Schema.Struct({
  used: Schema.Int,
  limit: Schema.Int,
  remaining: Schema.Int,
  resets_at: Schema.NullOr(Schema.String)
})

export const AccountView = Schema.Struct({
  id: Schema.String,
  email: Schema.String,
  plan: PlanName,
  credits: CreditBalance,
  daily_search: DailySearchView,
  script_generations: ScriptGenerationsView
})
export type AccountView = typeof AccountView.Type

export const CreatedAccount = Schema.Struct({
  id: Schema.String,
  email: Schema.String,
  plan: PlanName,
  api_key: Schema.String
})
export type CreatedAccount = typeof CreatedAccount.Type

/** Why the admin API's routes are no MCP tools: every admin group says it (kernel/McpTool.ts). */
export const operatorOnly = noTool("The admin API: the operator's token, not an account's")

export class AdminApi extends HttpApiGroup.make("admin").annotateContext(inProduct("Admin"))
  .annotate(McpTool, operatorOnly)
  .add(
    HttpApiEndpoint.post("createAccount", "/admin/accounts")
      .setPayload(CreateAccount)
      .addSuccess(CreatedAccount, { status: 201 })
      .addError(ConflictBody)
      .annotate(OpenApi.Summary, "Create an account and its API key")
  )
  .add(
    HttpApiEndpoint.get("getAccount", "/admin/accounts/:id")
      .setPath(IdPath)
      .addSuccess(AccountView)
      .addError(NotFoundBody)
      .annotate(OpenApi.Summary, "An account: plan, credits, daily searches and script generations")
  )
  .add(
    HttpApiEndpoint.patch("updateAccount", "/admin/accounts/:id")
      .setPath(IdPath)
      .setPayload(UpdateAccount)
      .addSuccess(AccountView)
      .addError(NotFoundBody)
      .annotate(OpenApi.Summary, "Change the plan, limits or balances")
  )
  .add(
    HttpApiEndpoint.post("addAddonCredits", "/admin/accounts/:id/addon-credits")
      .setPath(IdPath)
      .setPayload(AddonCredits)
      .addSuccess(Schema.Struct({ credits: CreditBalance }))
      .addError(NotFoundBody)
      .annotate(OpenApi.Summary, "Add a purchased credit pack")
  )
  .add(
    HttpApiEndpoint.post("regenerateKey", "/admin/accounts/:id/api-key")
      .setPath(IdPath)
      .addSuccess(Schema.Struct({ api_key: Schema.String }))
      .addError(NotFoundBody)
      .annotate(OpenApi.Summary, "Regenerate the API key; the old one stops working at once")
  )
  .middleware(AdminAuth)
  .annotateEndpoints(OpenApi.Transform, (operation) => ({ ...operation, security: [{ AdminToken: [] }] }))
{}

/** The admin API's part of the contract (kernel/Contract.ts). */
export class AdminContract extends contractPart().add(AdminApi) {}

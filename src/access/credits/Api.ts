import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { CreditBalance, metered } from "../gateway/Api.js"
import { contractPart } from "../../kernel/Contract.js"
import { inProduct } from "../../kernel/Products.js"
import { McpTool, tool } from "../../kernel/McpTool.js"

/** spec: Resources, "Response of `GET /api/v1/credits`". */
export const CreditsResponse = Schema.Struct({
  success: Schema.Literal(true),
  credits: CreditBalance
})

export class CreditsApi extends metered(
  HttpApiGroup.make("credits").annotateContext(inProduct("Account and keys")).add(
    HttpApiEndpoint.get("balance", "/api/v1/credits")
      .annotate(McpTool, tool("get_credits", {
        title: "API credits left",
        description: "The account's API credit balance: used and left this month, add-on credits, total left (after this call's own credit)."
      }))
      .addSuccess(CreditsResponse)
      .annotate(OpenApi.Summary, "Credit balance, after this call's own charge (1 credit)")
  )
) {}

/** The credits' part of the contract (kernel/Contract.ts). */
export class CreditsContract extends contractPart().add(CreditsApi) {}

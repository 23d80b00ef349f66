import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { CreditBalance, metered } from "../gateway/Api.js"
import { contractPart } from "../../kernel/Contract.js"
import { inProduct } from "../../kernel/Products.js"

/** spec: Resources, "Response of `GET /api/v1/credits`". */
export const CreditsResponse = Schema.Struct({
  success: Schema.Literal(true),
  credits: CreditBalance
})

export class CreditsApi extends metered(
  HttpApiGroup.make("credits").annotateContext(inProduct("Account and keys")).add(
    HttpApiEndpoint.get("balance", "/api/v1/credits")
      .addSuccess(CreditsResponse)
      .annotate(OpenApi.Summary, "Credit balance, after this call's own charge (1 credit)")
  )
) {}

/** The credits' part of the contract (kernel/Contract.ts). */
export class CreditsContract extends contractPart().add(CreditsApi) {}

import { HttpApi, type HttpApiGroup } from "@effect/platform"
import { CorpusUnavailableBody, InternalServerErrorBody, InvalidRequestBody, PayloadTooLargeBody, RequestHeaderFieldsTooLargeBody } from "./Errors.js"

/**
 * The service's API id. Every product's part of the contract carries it, so handlers built
 * against a part serve the whole (`HttpApiBuilder.group` registers routes by group, and the
 * whole is the parts' groups).
 */
export const apiId = "adintel"

/**
 * A part of the contract: no groups yet, the service's id and the failures any route may answer
 * (400 bad input, G10/G11; 413; 431; 500; 503 when a Citus worker does not answer, issue 45).
 * The OpenAPI document keeps 400 and 413 only where an operation takes input, and that 503 only
 * where it reads the ad corpus (app/Api.ts); 404 is declared by the routes that look a record up. Each capability's `Api.ts` declares its groups (and
 * their second paths) on one, e.g. `ShopExploreContract`, and its `Http.ts` builds the handlers
 * against it; `app/Api.ts` composes the parts into `AdIntelApi`. A capability so never imports
 * the whole contract, which imports every capability: dependencies point one way.
 */
// (`as Id`: a default value cannot be typed by the type parameter it defaults.)
export const contractPart = <const Id extends string = typeof apiId>(id: Id = apiId as Id) =>
  HttpApi.make(id)
    .addError(InvalidRequestBody)
    .addError(PayloadTooLargeBody)
    .addError(RequestHeaderFieldsTooLargeBody)
    .addError(InternalServerErrorBody)
    .addError(CorpusUnavailableBody)

/** A part of the contract, or the whole, whichever its groups (`any`: its errors and requirements are its own). */
export type AnyContract = HttpApi.HttpApi<string, HttpApiGroup.HttpApiGroup.Any, any, any>

import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { contractPart } from "../../kernel/Contract.js"
import { NotFoundBody } from "../../kernel/Errors.js"
import { CrossSiteRequestBody, SessionAuth } from "../session/Api.js"
import { disconnectPath } from "../session/ConnectedClients.js"
import { inProduct } from "../../kernel/Products.js"
import { McpTool, noTool } from "../../kernel/McpTool.js"

/**
 * The part of the OAuth server that is a session helper like the key page's forms: disconnecting
 * a connected MCP client. The OAuth protocol endpoints themselves (discovery, registration,
 * authorization, token, revocation) answer RFC bodies, not the service's envelope: they are
 * routes of the service's router (Http.ts), documented in the README.
 */

export const DisconnectForm = Schema.Struct({
  id: Schema.String.pipe(Schema.maxLength(64)).annotations({ description: "The connection's id, as the key page shows it" })
})

export const Disconnected = Schema.Struct({ success: Schema.Literal(true) })

export class McpClientsApi extends HttpApiGroup.make("mcpClients").annotateContext(inProduct("MCP and OAuth"))
  .annotate(McpTool, noTool("The key page's Disconnect, a session form"))
  .add(
    HttpApiEndpoint.post("disconnect", disconnectPath)
      .setPayload(DisconnectForm.pipe(HttpApiSchema.withEncoding({ kind: "UrlParams" })))
      .addSuccess(Disconnected)
      .addError(NotFoundBody)
      .addError(CrossSiteRequestBody)
      .middleware(SessionAuth)
      .annotate(
        OpenApi.Summary,
        "Disconnect an MCP client: its OAuth tokens stop working at once. A form post from the key page goes back to it"
      )
  )
  .annotateEndpoints(OpenApi.Transform, (operation) => ({ ...operation, security: [{ SessionCookie: [] }] }))
{}

/** The OAuth server's part of the contract (kernel/Contract.ts). */
export class OAuthContract extends contractPart().add(McpClientsApi) {}

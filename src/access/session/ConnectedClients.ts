import { Context, type Effect } from "effect"
import type { AccountId } from "../../kernel/Ids.js"

/** An MCP client connected to an account through OAuth, as the key page lists it. */
export interface ConnectedClient {
  readonly id: string
  readonly name: string
  /** The hosts it redirects to after consent: what the user recognises it by. */
  readonly redirectHosts: ReadonlyArray<string>
  readonly connectedAt: Date
  readonly refreshedAt: Date
}

/**
 * The connected MCP clients of an account (issue 21: "the key page lists the account's connected
 * MCP clients with Disconnect"). Declared here, implemented by the OAuth server (access/oauth),
 * so the key page depends on no OAuth code; a server without it shows no such list.
 */
export class ConnectedClients extends Context.Tag("adintel/ConnectedClients")<ConnectedClients, {
  readonly list: (accountId: AccountId) => Effect.Effect<ReadonlyArray<ConnectedClient>>
}>() {}

/** Where the key page's Disconnect buttons post (`id`: the connection's). */
export const disconnectPath = "/mcp/oauth/disconnect"

import { Effect } from "effect"
import { CreditsContract } from "./Api.js"
import { Caller } from "../gateway/Api.js"
import { serveGroup } from "../gateway/Http.js"

/** The balance the gateway computed with this call's own charge (G2): no further query. */
export const CreditsLive = serveGroup(CreditsContract, "credits", (handlers) =>
  handlers.handle("balance", () => Effect.map(Caller, (caller) => ({ success: true as const, credits: caller.credits }))))

import { Effect } from "effect"
import { Caller } from "../../access/gateway/Api.js"
import { serveGroup } from "../../access/gateway/Http.js"
import { DigestPrefsContract } from "./Api.js"
import { DigestPreferences } from "./DigestPreferences.js"

const answer = <A>(prefs: A) => ({ success: true as const, prefs })

/** `/api/v1/brands/notifications/prefs` (GET, POST) and its legacy session path (S4, S5). */
export const DigestPrefsLive = serveGroup(DigestPrefsContract, "brandDigestPrefs", (handlers) =>
  Effect.map(DigestPreferences, (prefs) =>
    handlers
      .handle("get", () => Effect.map(Effect.flatMap(Caller, (c) => prefs.get(c.accountId)), answer))
      .handle("update", ({ payload }) => Effect.map(Effect.flatMap(Caller, (c) => prefs.update(c.accountId, payload)), answer))))

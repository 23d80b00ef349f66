import { Effect } from "effect"
import { serveGroup } from "../../access/gateway/Http.js"
import { NotFound } from "../../kernel/Errors.js"
import { handleAll } from "../../kernel/Handlers.js"
import { BrandInsightsContract, endpointOf, type TabQuery, unknownTabError } from "./Api.js"
import { BrandInsights } from "./BrandInsights.js"
import { tabNames } from "./Tabs.js"

const tabOfEndpoint = new Map(tabNames.map((tab) => [endpointOf(tab), tab]))

/** `/api/v1/brands/<tab>`, `/tabs` and the unknown-tab answer; the legacy mirror is served by the same handlers. */
export const BrandInsightsLive = serveGroup(BrandInsightsContract, "brandInsights", (handlers) =>
  Effect.map(BrandInsights, (insights) =>
    handleAll(handlers, [...tabOfEndpoint.keys()], (name) => {
      const tab = tabOfEndpoint.get(name)!
      return ({ urlParams }: { readonly urlParams: TabQuery }) => insights.tab(tab, urlParams)
    })
      .handle("listTabs", () => Effect.succeed(insights.list))
      // spec: INTERPRETATIONS W2, the unknown tab name.
      .handle("unknownTab", ({ path }) => Effect.fail(new NotFound({ error: unknownTabError(path.tab) })))))

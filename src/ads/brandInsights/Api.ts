import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { NotFoundBody } from "../../kernel/Errors.js"
import { Schema } from "effect"
import { metered } from "../../access/gateway/Api.js"
import { legacy } from "../../access/session/Legacy.js"
import { contractPart } from "../../kernel/Contract.js"
import { CountryCode, ExternalId } from "../../kernel/Fields.js"
import { Choice } from "../../kernel/Params.js"
import { param, strictStruct } from "../../kernel/QueryParams.js"
import { queryOf } from "../../kernel/RouteParams.js"
import { libraries } from "../library/Filters.js"
import { type BrandTabs, brandTabs, type TabData, type TabName, tabNames } from "./Tabs.js"
import { inProduct } from "../../kernel/Products.js"
import { McpTool, noTool, tool } from "../../kernel/McpTool.js"
import { brandIdText } from "../library/Api.js"

/**
 * The brand insight tabs' routes (issue 19; INTERPRETATIONS W2, S4, S5), generated from the
 * declaration in `Tabs.ts`: one typed endpoint per tab (`GET /api/v1/brands/<tab>`), the list
 * of tabs, and the unknown-tab answer; all metered, and mirrored under the browser session at
 * `/api/brands/*`. Contract only.
 */

export const brandsPrefix = "/api/v1/brands"
export const legacyBrandsPrefix = "/api/brands"

/** The longest period a tab reads, in days (about three years of weeks and months). */
export const maxPeriodDays = 1_096
/** The default period: this many days ending `date_to`. */
export const defaultPeriodDays = 90

const params = {
  id: param.same(ExternalId.annotations({ description: "The brand: a social-network page, the `advertiser.id` of its ads" })),
  date_from: param.day(`First day of the period (UTC), YYYY-MM-DD; default: ${defaultPeriodDays - 1} days before date_to`),
  date_to: param.day("Last day of the period (UTC), YYYY-MM-DD; default: today"),
  library: param.list(Choice(...libraries), "Only the brand's ads in these libraries (default: all); in other libraries than social, the brand is the advertisers with its page's domain"),
  country: param.list(CountryCode, "Only ads targeting any of these countries (ISO 3166-1 alpha-2)")
}

/** What selects a tab's ads. Unknown parameters are refused (G11). */
export const TabQuery = queryOf(params, "id")
export type TabQuery = typeof TabQuery.Type

export const BrandRef = Schema.Struct({ id: Schema.String, name: Schema.String })
export const Period = Schema.Struct({ date_from: Schema.String, date_to: Schema.String })

/** A tab's `data` schema, typed as that tab's (a property read through a type parameter is typed as any tab's). */
const dataSchema = <T extends TabName>(tab: T): BrandTabs[T]["data"] => brandTabs[tab].data

/** spec: INTERPRETATIONS W2: `{ success, brand, period, data }`, `data` as the tab declares it. */
export const tabAnswer = <T extends TabName>(tab: T) =>
  Schema.Struct({ success: Schema.Literal(true), brand: BrandRef, period: Period, data: dataSchema(tab) })
/** A tab's answer; for a union of tabs, the union of their answers (what a family's handler may answer). */
export type TabAnswer<T extends TabName> = T extends TabName ? {
    readonly success: true
    readonly brand: typeof BrandRef.Type
    readonly period: typeof Period.Type
    readonly data: TabData<T>
  }
  : never

export const TabList = Schema.Struct({
  success: Schema.Literal(true),
  data: Schema.Array(Schema.Struct({ name: Schema.String, path: Schema.String, description: Schema.String }))
})
export type TabList = typeof TabList.Type

type Camel<S extends string> = S extends `${infer Head}-${infer Tail}` ? `${Head}${Capitalize<Camel<Tail>>}` : S
/** A tab's endpoint name: `overview-cards` -> `overviewCards` (the typed client's method). */
export const endpointOf = <const T extends TabName>(tab: T) =>
  // The expression spells at run time what `Camel` spells in the type.
  tab.replace(/-(\w)/g, (_, c: string) => c.toUpperCase()) as Camel<T>

const periodNote = `The period is date_from to date_to (UTC days, both included; at most ${maxPeriodDays} days; default the last ${defaultPeriodDays} days). ` +
  "A tab reads the brand's ads that ran at some time in the period. Any brand of the library answers, tracked or not; an unknown one is a 404."

const tabEndpoint = <const T extends TabName>(tab: T) =>
  HttpApiEndpoint.get(endpointOf(tab), `${brandsPrefix}/${tab}`)
    .setUrlParams(TabQuery)
    .addSuccess(tabAnswer(tab))
    .addError(NotFoundBody)
    .annotate(OpenApi.Summary, `Brand tab ${tab}: ${brandTabs[tab].description}`)
    .annotate(OpenApi.Description, periodNote)
    .annotate(McpTool, tool(`brand_${tab.replace(/-/g, "_")}`, {
      title: `Brand insight: ${tab}`,
      description:
        `${brandTabs[tab].description}. For one brand (${brandIdText}), tracked or not, over date_from..date_to (UTC days, default the last 90 days); library and country narrow the ads read. Use list_brand_tabs to see every tab.`
    }))

/** Each tab's endpoint, typed one by one (the loop below builds them; TypeScript would type its calls as any tab's). */
type TabEndpoint = { [T in TabName]: ReturnType<typeof tabEndpoint<T>> }[TabName]

/** spec: INTERPRETATIONS W2: a tab name no declaration has; metered, and the credit kept (G4). */
export const unknownTabError = (name: string) => `Unknown brand tab: ${name}`

const listEndpoint = HttpApiEndpoint.get("listTabs", `${brandsPrefix}/tabs`)
  .setUrlParams(strictStruct({}, "query"))
  .addSuccess(TabList)
  .annotate(OpenApi.Summary, "The brand insight tabs: name, path and description of each")
  .annotate(McpTool, tool("list_brand_tabs", {
    title: "Brand insight tabs",
    description: "Lists the brand insight tabs (name, path, what each shows). Each has its own tool named brand_<tab> (dashes as underscores)."
  }))

/**
 * Any other single segment under the prefix, as a GET: an unknown tab. The router prefers
 * every static path (the tabs, `/tabs`, and the other brand routes) over this parameter.
 * Left out of the OpenAPI document, like the short-video shop's unknown paths.
 */
const unknownEndpoint = HttpApiEndpoint.get("unknownTab", `${brandsPrefix}/:tab`)
  .setPath(Schema.Struct({ tab: Schema.String.pipe(Schema.maxLength(200, { message: () => "must be at most 200 characters" })) }))
  .addError(NotFoundBody)
  .annotate(OpenApi.Exclude, true)
  .annotate(McpTool, noTool("The 404 of a tab name that does not exist"))

export class BrandInsightsApi extends metered(
  (tabNames.map((tab) => tabEndpoint(tab)) as ReadonlyArray<TabEndpoint>).reduce(
    (group: HttpApiGroup.HttpApiGroup<"brandInsights", TabEndpoint | typeof listEndpoint | typeof unknownEndpoint, never>, endpoint) => group.add(endpoint),
    HttpApiGroup.make("brandInsights").annotateContext(inProduct("Brands")).add(listEndpoint).add(unknownEndpoint)
  )
) {}

/** The brand tabs' part of the contract (kernel/Contract.ts), also under the browser session (S4, S5). */
export class BrandInsightsContract extends contractPart()
  .add(BrandInsightsApi)
  .add(legacy(BrandInsightsApi, { from: brandsPrefix, to: legacyBrandsPrefix }))
{}

import { Effect, Option } from "effect"
import type { AdView } from "../ads/library/Api.js"
import { AdSearch } from "../ads/library/AdSearch.js"
import { ShareLinks } from "../ads/workspace/ShareLinks.js"
import { Workspace } from "../ads/workspace/Workspace.js"
import type { AccountId } from "../kernel/Ids.js"

/** How many ads the demo workspace picks from: the library's longest-running social ads. */
const pool = 50
const perBoard = 4

/**
 * The demo account's workspace on the first start (issue 19, "Demo data"): two folders of
 * boards holding the longest-running social ads' brands and ads (notes and tags on some), a few
 * ads on the default "Saved ads" board, and one board shared for a year. Built through the
 * services from whatever the library holds, so every run over the same data makes the same
 * workspace; an account that has one already is left alone. Answers the shared board's path
 * (`/share/<token>`, shown once), or none when there was nothing to do or it could not be made.
 */
export const seedDemoWorkspace = (accountId: AccountId): Effect.Effect<Option.Option<string>, never, Workspace | ShareLinks | AdSearch> =>
  Effect.gen(function*() {
    const workspace = yield* Workspace
    const links = yield* ShareLinks
    const search = yield* AdSearch
    if ((yield* workspace.tree(accountId)).length > 0) return Option.none()
    const ads = (yield* search.search("social", { sort: "longest_running", limit: pool })).data
    if (ads.length === 0) return Option.none()
    const brands = [...new Set(ads.map((ad) => ad.advertiser.id))]
    const adsOf = (brand: string | undefined) => ads.filter((ad) => ad.advertiser.id === brand).slice(0, perBoard)

    const save = (list: ReadonlyArray<AdView>, board?: string) =>
      Effect.forEach(list, (ad) => workspace.save(accountId, { ad_id: ad.id, library: "social", board_id: board }), { discard: true })
    const brandBoard = (folder: string, name: string, picked: ReadonlyArray<string | undefined>) =>
      Effect.gen(function*() {
        const board = yield* workspace.createBoard(accountId, folder, name)
        for (const brand of picked) {
          if (brand === undefined) continue
          yield* workspace.addBrand(accountId, board.id, brand)
          yield* save(adsOf(brand), board.id)
        }
      })

    const competitors = yield* workspace.createFolder(accountId, "Competitors")
    yield* brandBoard(competitors.id, "Category leaders", [brands[0], brands[1]])
    yield* brandBoard(competitors.id, "Challengers", [brands[2], brands[3]])

    const inspiration = yield* workspace.createFolder(accountId, "Inspiration")
    const hooks = yield* workspace.createBoard(accountId, inspiration.id, "Hooks that work")
    const withHooks = ads.filter((ad) => ad.ai_tags?.hook != null).slice(0, 6)
    yield* save(withHooks, hooks.id)
    yield* Effect.forEach(withHooks, (ad) =>
      workspace.annotate(accountId, {
        ad_id: ad.id,
        library: "social",
        note: `Opens with "${ad.ai_tags!.hook}": ${ad.days_running} days running so far.`,
        tags: [ad.format, ...(ad.niche === null ? [] : [ad.niche]), "hook"]
      }), { discard: true })
    const runners = yield* workspace.createBoard(accountId, inspiration.id, "Long runners")
    yield* save(ads.slice(0, 6), runners.id)

    // The default board, as a save without one makes it.
    yield* save(ads.slice(-3))

    const link = yield* links.create(accountId, { board_id: hooks.id, expires_in_days: 365 }, "")
    return Option.some(link.url)
  }).pipe(
    // The demo workspace is a courtesy: the first start goes on without it (limits set very low, say).
    Effect.catchAllCause((cause) => Effect.as(Effect.logWarning("The demo workspace could not be made", cause), Option.none<string>()))
  )

import { Clock, Effect, Option, ParseResult, Schema } from "effect"
import { Conflict, InvalidRequest, NotFound } from "../../kernel/Errors.js"
import { describeIssue } from "../../kernel/Issues.js"
import { type Page, pageOf, windowOf } from "../../kernel/Paging.js"
import {
  type DeletePreset,
  maxPresets,
  type Preset,
  type PresetFilters,
  presetFilters,
  type PresetScope,
  type PresetsQuery,
  type SavePreset,
  type UpdatePreset
} from "./Api.js"
import { type PresetInput, ShopPresetsRepo } from "./ShopPresetsRepo.js"
import type { AccountId } from "../../kernel/Ids.js"
import { serviceSpan } from "../../platform/telemetry/Tracing.js"

const notFound = new NotFound({ error: "Preset not found" })
const full = new InvalidRequest({ error: `Presets are limited to ${maxPresets} per account` })
const taken = (name: string, scope: PresetScope) => new Conflict({ error: `A preset named ${name} already exists for ${scope}` })

/** Two names are the same name when they fold alike: the same characters (NFC), whatever their case. */
export const nameKey = (name: string): string => name.normalize("NFC").toLowerCase()

/** The order they were sent in: a preset answers its filters as its owner wrote them. */
const inOrder = { propertyOrder: "original" } as const

/**
 * The filters a preset of `scope` keeps: checked against that entity's explore parameters
 * (G11, the field named under `filters.`), then written back in the JSON-body form explore
 * takes (lists as arrays, texts trimmed), so the preset replays as an explore body.
 */
const checked = <E extends PresetScope>(scope: E, filters: PresetFilters): Effect.Effect<PresetFilters, InvalidRequest> => {
  const schema = presetFilters[scope]
  return Schema.decodeUnknown(schema, inOrder)(filters).pipe(
    Effect.mapError((error) => {
      const issue = ParseResult.ArrayFormatter.formatErrorSync(error)[0]
      return new InvalidRequest({ error: describeIssue(issue && { ...issue, path: ["filters", ...issue.path] }) })
    }),
    Effect.flatMap((decoded) => Effect.orDie(Schema.encode(schema, inOrder)(decoded)))
  )
}

/**
 * The account's short-video shop filter presets (issue 5, "Per-account records"): a name, the
 * explore page it is for (its scope, fixed once saved) and that page's filters. Presets never
 * touch the daily search quota (G7); the key side pays its 1 credit at the gateway.
 */
export class ShopPresets extends Effect.Service<ShopPresets>()("adintel/ShopPresets", {
  effect: Effect.gen(function*() {
    const repo = yield* ShopPresetsRepo

    const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))

    return {
      /** P2 page of the account's presets, most recently updated first. */
      list: Effect.fn("ShopPresets.list", serviceSpan)((account: AccountId, query: PresetsQuery): Effect.Effect<Page<Preset>> => {
        const window = windowOf(query)
        return Effect.map(repo.page(account, query.scope, window), ({ presets, total }) => pageOf(window, presets, total))
      }),

      /** A new preset; its name must be free in its scope, and the account below the cap. */
      save: Effect.fn("ShopPresets.save", serviceSpan)(function*(account: AccountId, { filters, name, scope }: SavePreset): Effect.fn.Return<Preset, InvalidRequest | Conflict> {
        const input: PresetInput = { name, nameKey: nameKey(name), filters: yield* checked(scope, filters) }
        const saved = yield* repo.save(account, scope, input, yield* now, maxPresets)
        if (saved === "taken") return yield* Effect.fail(taken(name, scope))
        if (saved === "full") return yield* Effect.fail(full)
        return saved
      }),

      /** A rename, new filters (checked against the preset's own scope) or both. */
      update: Effect.fn("ShopPresets.update", serviceSpan)(function*(
        account: AccountId,
        { filters, id, name }: UpdatePreset
      ): Effect.fn.Return<Preset, InvalidRequest | NotFound | Conflict> {
        if (name === undefined && filters === undefined) {
          return yield* Effect.fail(new InvalidRequest({ error: "name or filters is missing" }))
        }
        const preset = yield* Effect.flatMap(repo.find(account, id), Option.match({
          onNone: () => Effect.fail(notFound),
          onSome: Effect.succeed
        }))
        const changes: Partial<PresetInput> = {
          ...(name === undefined ? {} : { name, nameKey: nameKey(name) }),
          ...(filters === undefined ? {} : { filters: yield* checked(preset.scope, filters) })
        }
        const updated = yield* repo.update(account, id, preset.scope, changes, yield* now)
        // Deleted since it was read: as if it had gone before.
        if (updated === "missing") return yield* Effect.fail(notFound)
        if (updated === "taken") return yield* Effect.fail(taken(name!, preset.scope))
        return updated
      }),

      remove: Effect.fn("ShopPresets.remove", serviceSpan)((account: AccountId, { id }: DeletePreset): Effect.Effect<void, NotFound> =>
        Effect.flatMap(repo.remove(account, id), (removed) => removed ? Effect.void : Effect.fail(notFound)))
    }
  }),
  dependencies: [ShopPresetsRepo.Default]
}) {}

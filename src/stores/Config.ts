import { Config, ConfigError, Either } from "effect"
import * as path from "node:path"
import { optionalSetting } from "../platform/AppConfig.js"
import { type PlanName, planNames } from "../access/gateway/Api.js"
import { isOneOf } from "../kernel/Guards.js"

/**
 * Settings of the hosted-stores product (issue 20), read only through `Config`:
 * - `STORE_TRACKER_LIMITS`: tracked stores per plan, `basic=25,pro=100,premium=500` (a plan not
 *   named may track none);
 * - `STORE_MEDIA_DIR`: product images served as files (default `DATA_DIR/media`); drawn ones are not kept.
 */

export type TrackerLimits = Readonly<Record<PlanName, number>>

export const defaultTrackerLimits = "basic=25,pro=100,premium=500"

const parseLimits = (text: string): Either.Either<TrackerLimits, string> => {
  const limits: Record<PlanName, number> = { free: 0, basic: 0, pro: 0, premium: 0 }
  for (const entry of text.split(",").map((e) => e.trim()).filter((e) => e !== "")) {
    const match = /^(\w+)=(\d{1,7})$/.exec(entry)
    const plan = match?.[1]
    if (match === null || plan === undefined || !isOneOf(planNames, plan)) {
      return Either.left(`${entry}: expected <plan>=<count> with plan free, basic, pro or premium`)
    }
    limits[plan] = Number(match[2])
  }
  return Either.right(limits)
}

export const trackerLimits: Config.Config<TrackerLimits> = Config.string("STORE_TRACKER_LIMITS").pipe(
  Config.withDefault(defaultTrackerLimits),
  Config.mapOrFail((text) =>
    Either.mapLeft(parseLimits(text), (reason) => ConfigError.InvalidData(["STORE_TRACKER_LIMITS"], reason))
  )
)

export const mediaDir: Config.Config<string> = Config.all([optionalSetting("STORE_MEDIA_DIR"), optionalSetting("DATA_DIR")]).pipe(
  Config.map(([media, data]) =>
    path.resolve(media._tag === "Some" ? media.value : path.join(data._tag === "Some" ? data.value : "./.data", "media")))
)

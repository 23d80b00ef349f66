import { Config, ConfigError, Either } from "effect"
import { type PlanName, planNames } from "../../access/gateway/Api.js"
import { isOneOf } from "../../kernel/Guards.js"

/** How many brands an account may track on each plan (W1), unless `BRAND_TRACKING_LIMITS` says otherwise. */
export const defaultTrackingLimits: Readonly<Record<PlanName, number>> = { free: 3, basic: 25, pro: 100, premium: 500 }

/** No plan tracks more: the tracked list stays a list, not a second library. */
export const maxTrackingLimit = 10_000

const variable = "BRAND_TRACKING_LIMITS"

/** `basic=25,pro=100`: the plans named get these limits, the others keep their defaults. */
export const parseTrackingLimits = (text: string): Either.Either<Record<PlanName, number>, string> => {
  const limits: Record<PlanName, number> = { ...defaultTrackingLimits }
  for (const part of text.split(",").map((p) => p.trim()).filter((p) => p !== "")) {
    const match = /^([a-z]+)\s*=\s*(\d{1,6})$/.exec(part)
    const plan = match?.[1]
    const limit = Number(match?.[2])
    if (match === null || plan === undefined || !isOneOf(planNames, plan) || limit > maxTrackingLimit) {
      return Either.left(`${variable} must list <plan>=<brands> pairs such as basic=25,pro=100 (plans: ${planNames.join(", ")}; 0 to ${maxTrackingLimit} brands)`)
    }
    limits[plan] = limit
  }
  return Either.right(limits)
}

/** The brand tracker's settings, read through `Config` (README, Settings). */
export const trackingLimits: Config.Config<Readonly<Record<PlanName, number>>> = Config.string(variable).pipe(
  Config.withDefault(""),
  Config.mapOrFail((text) => Either.mapLeft(parseTrackingLimits(text), (message) => ConfigError.InvalidData([variable], message)))
)

import { randomBytes, scrypt, timingSafeEqual } from "node:crypto"
import { Config, Effect } from "effect"

/**
 * Passwords are stored as scrypt hashes (spec: INTERPRETATIONS S1): `scrypt$N$r$p$salt$hash`.
 * The cost is N = 2^17, r = 8, p = 1 (OWASP's guidance; 128 MiB and about a quarter of a second
 * a hash here); a hash stored with a lower cost is hashed again at the next sign-in (issue 28).
 */
export interface Cost {
  readonly N: number
  readonly r: number
  readonly p: number
}
export const productionCost: Cost = { N: 2 ** 17, r: 8, p: 1 }

/** The exponent of scrypt's N that `PASSWORD_HASH_COST` defaults to (N = 2^17). */
export const productionCostExponent = Math.log2(productionCost.N)

/**
 * `PASSWORD_HASH_COST`: the cost new hashes are made at, as the exponent of scrypt's N (10 to 17;
 * r and p as in production). 17 unless set: the test suite lowers it, except where the cost
 * itself is tested, since each hash at 2^17 takes most of a core for a quarter of a second.
 */
export const configuredCost: Config.Config<Cost> = Config.integer("PASSWORD_HASH_COST").pipe(
  Config.withDefault(productionCostExponent),
  Config.validate({
    message: `PASSWORD_HASH_COST must be from 10 to ${productionCostExponent} (scrypt's N = 2^PASSWORD_HASH_COST)`,
    validation: (exponent) => exponent >= 10 && exponent <= productionCostExponent
  }),
  Config.map((exponent): Cost => ({ ...productionCost, N: 2 ** exponent }))
)

/** Room for the largest cost a stored hash may name: 128 * N * r bytes, and some. */
const maxmem = 256 * 1024 * 1024

const derive = (password: string, salt: Buffer, { N, p, r }: Cost) =>
  Effect.async<Buffer>((resume) => {
    scrypt(password, salt, 32, { N, r, p, maxmem }, (error, key) => resume(error ? Effect.die(error) : Effect.succeed(key)))
  })

/** A new hash of `password`, at `at` (the configured cost unless a test asks for an older one). */
export const hash = (password: string, at: Cost) =>
  Effect.flatMap(Effect.sync(() => randomBytes(16)), (salt) =>
    Effect.map(derive(password, salt, at), (key) => `scrypt$${at.N}$${at.r}$${at.p}$${salt.toString("base64")}$${key.toString("base64")}`))

const parse = (stored: string) => {
  const [scheme, n, r, p, salt, key] = stored.split("$")
  return scheme !== "scrypt" || !salt || !key ? undefined : { cost: { N: Number(n), r: Number(r), p: Number(p) }, salt, key }
}

export const verify = (password: string, stored: string) => {
  const parsed = parse(stored)
  if (parsed === undefined) return Effect.succeed(false)
  return Effect.map(
    derive(password, Buffer.from(parsed.salt, "base64"), parsed.cost),
    (derived) => timingSafeEqual(derived, Buffer.from(parsed.key, "base64"))
  )
}

/** Whether a stored hash was made at less than the `cost` new hashes are made at. */
export const isWeak = (stored: string, cost: Cost) => {
  const parsed = parse(stored)
  return parsed === undefined || parsed.cost.N < cost.N || parsed.cost.r < cost.r || parsed.cost.p < cost.p
}

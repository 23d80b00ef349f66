import { randomBytes, scrypt, timingSafeEqual } from "node:crypto"
import { Effect } from "effect"

/** Passwords are stored as scrypt hashes (spec: INTERPRETATIONS S1): `scrypt$N$r$p$salt$hash`. */
const N = 16384
const r = 8
const p = 1

const derive = (password: string, salt: Buffer, n: number, rr: number, pp: number) =>
  Effect.async<Buffer>((resume) => {
    scrypt(password, salt, 32, { N: n, r: rr, p: pp, maxmem: 64 * 1024 * 1024 }, (error, key) =>
      resume(error ? Effect.die(error) : Effect.succeed(key)))
  })

export const hash = (password: string) =>
  Effect.flatMap(Effect.sync(() => randomBytes(16)), (salt) =>
    Effect.map(derive(password, salt, N, r, p), (key) =>
      `scrypt$${N}$${r}$${p}$${salt.toString("base64")}$${key.toString("base64")}`))

export const verify = (password: string, stored: string) => {
  const [scheme, n, rr, pp, salt, key] = stored.split("$")
  if (scheme !== "scrypt" || !salt || !key) return Effect.succeed(false)
  return Effect.map(
    derive(password, Buffer.from(salt, "base64"), Number(n), Number(rr), Number(pp)),
    (derived) => timingSafeEqual(derived, Buffer.from(key, "base64"))
  )
}

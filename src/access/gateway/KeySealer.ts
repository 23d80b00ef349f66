import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { Config, Effect, Option, Redacted } from "effect"
import { dataDir } from "../../platform/db/Database.js"
import { serviceSpan } from "../../platform/telemetry/Tracing.js"

/**
 * Keeps clear API keys encrypted at rest (AES-256-GCM) so the key page can show a key again
 * (spec: INTERPRETATIONS G13). The secret is `KEY_ENCRYPTION_SECRET`; when unset, one is
 * generated once and kept in `DATA_DIR/key-encryption-secret` (mode 0600).
 */
export class KeySealer extends Effect.Service<KeySealer>()("adintel/KeySealer", {
  effect: Effect.gen(function*() {
    const secret = yield* keySecret
    const key = Buffer.from(
      hkdfSync("sha256", Buffer.from(Redacted.value(secret), "utf8"), "adintel", "api-key-sealing", 32)
    )
    return {
      /** iv (12 bytes) | tag (16 bytes) | ciphertext */
      seal: (clear: string): Buffer => {
        const iv = randomBytes(12)
        const cipher = createCipheriv("aes-256-gcm", key, iv)
        const body = Buffer.concat([cipher.update(clear, "utf8"), cipher.final()])
        return Buffer.concat([iv, cipher.getAuthTag(), body])
      },
      open: Effect.fn("KeySealer.open", serviceSpan)((sealed: Uint8Array): Effect.Effect<string> =>
        Effect.sync(() => {
          const bytes = Buffer.from(sealed)
          const decipher = createDecipheriv("aes-256-gcm", key, bytes.subarray(0, 12))
          decipher.setAuthTag(bytes.subarray(12, 28))
          return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString("utf8")
        }))
    }
  })
}) {}

/**
 * The server secret: `KEY_ENCRYPTION_SECRET`, or one generated once under `DATA_DIR`. Every
 * replica must share it. Other keys (scroll-token signing) are derived from it with HKDF.
 */
export const keySecret = Effect.gen(function*() {
  const configured = yield* Config.option(Config.redacted("KEY_ENCRYPTION_SECRET"))
  if (Option.isSome(configured) && Redacted.value(configured.value).length > 0) {
    if (Redacted.value(configured.value).length < 16) {
      return yield* Effect.dieMessage("KEY_ENCRYPTION_SECRET must be at least 16 characters")
    }
    return configured.value
  }
  const file = path.join(path.resolve(yield* dataDir), "key-encryption-secret")
  return yield* Effect.promise(async () => {
    await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 })
    await fs.writeFile(file, randomBytes(32).toString("hex") + "\n", { mode: 0o600, flag: "wx" }).catch(() => undefined)
    return Redacted.make((await fs.readFile(file, "utf8")).trim())
  })
}).pipe(Effect.orDie)

import { createHmac, randomBytes } from "node:crypto"

/**
 * Standard Webhooks signing (H3): `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`, keyed by
 * the base64-decoded part of the `whsec_` secret after the prefix.
 */

const prefix = "whsec_"

/** A new secret: `whsec_` and the base64 of 24 random bytes. */
export const newSecret = () => `${prefix}${randomBytes(24).toString("base64")}`

/** One signature of a message with one secret. */
export const signature = (secret: string, id: string, timestamp: number, body: string) =>
  `v1,${createHmac("sha256", Buffer.from(secret.slice(prefix.length), "base64")).update(`${id}.${timestamp}.${body}`).digest("base64")}`

/** The `webhook-signature` header: one signature per secret in force, space-separated (a rotation's overlap). */
export const signatureHeader = (secrets: ReadonlyArray<string>, id: string, timestamp: number, body: string) =>
  secrets.map((secret) => signature(secret, id, timestamp, body)).join(" ")

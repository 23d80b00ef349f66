import { Schema } from "effect"

/**
 * Media this service draws and serves itself (generated product images of the demo worlds):
 * a record may name one by its path under `/media/`, and answers turn it into a full URL on
 * this service. The name allows no `/` and no `..`, so a path can never leave the media folder.
 */

export const mediaPrefix = "/media/stores/"

/** A file name of our own media: lowercase letters, digits and dashes, then the format. */
export const mediaFileName = /^[a-z0-9][a-z0-9-]{0,150}\.(png|jpg|webp)$/

export const MediaPath = Schema.String.pipe(
  Schema.filter((text) => text.startsWith(mediaPrefix) && mediaFileName.test(text.slice(mediaPrefix.length))),
  Schema.annotations({
    message: () => ({ message: `must be a path of this service's media such as ${mediaPrefix}abc.png`, override: true }),
    description: "A path of this service's own media (generated images)"
  })
)

/** Whether an image reference is one of our own media paths (not an http(s) URL). */
export const isMediaPath = (reference: string) => reference.startsWith(mediaPrefix)

/** An image reference as answers show it: our media paths on this service's base URL. */
export const absoluteImage = (base: string) => (reference: string) => (isMediaPath(reference) ? `${base}${reference}` : reference)

import sharp from "sharp"
import { mulberry32 } from "../../platform/media/ImageFeatures.js"

/**
 * Product images drawn from their name (`<8 hex digits>-<words>.png`): the digits seed the
 * background, the shapes and their colours, the words are the label. The same name draws
 * the same picture, so the demo's images need no network and can be drawn again at any time.
 */

export const artSide = 400

/** The drawing a name describes, or undefined when it names none. */
export const parseArtName = (name: string): { readonly seed: number; readonly label: string } | undefined => {
  const match = /^([0-9a-f]{8})-([a-z0-9-]{1,150})\.png$/.exec(name)
  if (!match) return undefined
  const label = match[2]!.split("-").filter((w) => w !== "").map((w) => w[0]!.toUpperCase() + w.slice(1)).join(" ")
  return { seed: Number.parseInt(match[1]!, 16), label: label.slice(0, 40) }
}

/** The SVG of a drawing: a tinted background, three to five shapes, the label on a band. */
export const artSvg = (seed: number, label: string): string => {
  const random = mulberry32(seed)
  const hue = () => Math.floor(random() * 360)
  const colour = (s: number, l: number) => `hsl(${hue()},${s + Math.floor(random() * 30)}%,${l + Math.floor(random() * 20)}%)`
  const at = (margin: number) => Math.floor(margin + random() * (artSide - 2 * margin))
  const shapes: Array<string> = []
  const count = 3 + Math.floor(random() * 3)
  for (let i = 0; i < count; i++) {
    const kind = Math.floor(random() * 4)
    const fill = colour(50, 25 + i * 5)
    if (kind === 0) shapes.push(`<circle cx="${at(80)}" cy="${at(80)}" r="${30 + Math.floor(random() * 70)}" fill="${fill}"/>`)
    else if (kind === 1) {
      shapes.push(`<rect x="${at(60) - 60}" y="${at(60) - 60}" width="${60 + Math.floor(random() * 140)}" height="${60 + Math.floor(random() * 160)}" rx="${Math.floor(random() * 30)}" fill="${fill}"/>`)
    } else if (kind === 2) {
      shapes.push(`<ellipse cx="${at(90)}" cy="${at(90)}" rx="${40 + Math.floor(random() * 60)}" ry="${20 + Math.floor(random() * 50)}" fill="${fill}"/>`)
    } else shapes.push(`<polygon points="${at(30)},${at(30)} ${at(30)},${at(30)} ${at(30)},${at(30)}" fill="${fill}"/>`)
  }
  const background = colour(35, 70)
  const stripe = `<rect x="0" y="${at(20)}" width="${artSide}" height="${10 + Math.floor(random() * 30)}" fill="${colour(40, 55)}" opacity="0.6"/>`
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${artSide}" height="${artSide}" viewBox="0 0 ${artSide} ${artSide}">` +
    `<rect width="${artSide}" height="${artSide}" fill="${background}"/>${stripe}${shapes.join("")}` +
    `<rect x="0" y="${artSide - 56}" width="${artSide}" height="56" fill="#ffffff" opacity="0.85"/>` +
    `<text x="${artSide / 2}" y="${artSide - 20}" font-family="DejaVu Sans, Arial, sans-serif" font-size="24" text-anchor="middle" fill="#222222">${label}</text>` +
    `</svg>`
}

/** The PNG a name describes, or undefined when it names no drawing. */
export const drawArt = async (name: string): Promise<Uint8Array | undefined> => {
  const art = parseArtName(name)
  if (art === undefined) return undefined
  const png = await sharp(Buffer.from(artSvg(art.seed, art.label))).png({ compressionLevel: 6 }).toBuffer()
  return new Uint8Array(png.buffer, png.byteOffset, png.byteLength)
}

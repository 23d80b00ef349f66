import { type HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { randomBytes } from "node:crypto"
import { baseUrl, type Reach } from "./Forwarded.js"

/**
 * What the service's own HTML pages share (the session pages, the OAuth consent page): how a
 * page is answered, how a form redirects, and whether a form post came from these pages.
 */

/** Pages are private and never framed; their one inline script carries a nonce. */
export const page = (body: (nonce: string) => string, status = 200, headers: Record<string, string> = {}) => {
  const nonce = randomBytes(16).toString("base64")
  return HttpServerResponse.text(body(nonce), {
    status,
    contentType: "text/html; charset=utf-8",
    headers: {
      "cache-control": "no-store",
      "x-frame-options": "DENY",
      "referrer-policy": "same-origin",
      "content-security-policy":
        `default-src 'none'; style-src 'unsafe-inline'; script-src 'nonce-${nonce}'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
      ...headers
    }
  })
}

/** After a form post: the browser goes to `location` with a GET. */
export const seeOther = (location: string) => HttpServerResponse.empty({ status: 303, headers: { location, "cache-control": "no-store" } })

const originOf = (value: string | undefined) => {
  if (value === undefined) return undefined
  try {
    return new URL(value).origin
  } catch {
    return "null"
  }
}

/**
 * Why a state-changing request did not come from this service's own pages (S1), or undefined
 * when it did. Browsers send Origin with every form post; Referer stands in where a privacy
 * setting dropped Origin.
 */
export const crossSiteRefusal = (request: HttpServerRequest.HttpServerRequest, reach: Reach): string | undefined => {
  const origin = request.headers["origin"] ?? originOf(request.headers["referer"])
  if (origin === undefined) return "Cross-site request refused: Origin header missing"
  if (origin !== baseUrl(request, reach)) return "Cross-site request refused: Origin does not match this service"
  return undefined
}

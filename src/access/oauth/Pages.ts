import { Option } from "effect"
import { html, layout, raw } from "../session/Pages.js"
import type { AuthorizationRequest } from "./OAuth.js"

/** The consent page and the authorization error page, in the key page's look (session/Pages.ts). */

export const authorizePath = "/mcp/oauth/authorize"

/** The hosts an application redirects to: what a user can recognise it by. */
export const hostOf = (uri: string) => (URL.canParse(uri) ? new URL(uri).host : uri)

/** The request's parameters as hidden fields: the form posts the same request back, decided. */
const hidden = (request: AuthorizationRequest) => {
  const fields: Array<readonly [string, string]> = [
    ["response_type", "code"],
    ["client_id", request.client.id],
    ["redirect_uri", request.redirectUri],
    ["code_challenge", request.codeChallenge],
    ["code_challenge_method", "S256"],
    ["resource", request.resource],
    ...Option.match(request.state, { onNone: () => [], onSome: (state) => [["state", state] as const] }),
    ...Option.match(request.scope, { onNone: () => [], onSome: (scope) => [["scope", scope] as const] })
  ]
  return fields.map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)
}

export const consentPage = (
  request: AuthorizationRequest,
  account: { readonly email: string; readonly apiAccess: boolean },
  nonce: string
): string =>
  layout(
    "Connect an application · AdIntel",
    nonce,
    html`<span class="muted" id="account">${account.email}</span>`,
    html`<section class="card login" id="consent">
<h1>Connect <span id="client-name">${request.client.name}</span>?</h1>
<p>It will use AdIntel's research tools as <strong>${account.email}</strong>: every tool call costs one of this account's API credits.</p>
<p class="muted">After you decide, you return to <strong id="redirect-host">${hostOf(request.redirectUri)}</strong>. You can disconnect it any time on the API-key page.</p>
${account.apiAccess ? raw("") : html`<p class="alert bad" role="alert">API access needs the Basic plan or higher: this account cannot connect applications.</p>`}
<form method="post" action="${authorizePath}">
${hidden(request)}
<button type="submit" name="decision" value="allow" id="allow"${account.apiAccess ? raw("") : raw(" disabled")}>Allow</button>
<button type="submit" name="decision" value="deny" class="secondary" id="deny">Deny</button>
</form></section>`,
    false
  )

export const authorizationErrorPage = (message: string, nonce: string): string =>
  layout(
    "Authorization failed · AdIntel",
    nonce,
    raw(""),
    html`<section class="card login"><h1>This authorization request cannot be completed</h1>
<p class="alert bad" role="alert">${message}</p>
<p class="muted">Go back to the application and connect again.</p></section>`,
    false
  )

import { type ConnectedClient, disconnectPath } from "./ConnectedClients.js"
import type { KeyPageData } from "./Sessions.js"

/**
 * The session pages as HTML strings: no framework, no CDN, no JavaScript needed (the key is
 * revealed by a native <details>; a small inline script only adds the copy buttons).
 */

const escape = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" })[c]!)

/** Interpolated values are escaped; `raw` marks markup built by these functions. */
export interface Raw {
  readonly html: string
}
export const raw = (html: string): Raw => ({ html })
export const html = (strings: TemplateStringsArray, ...values: ReadonlyArray<string | number | Raw | ReadonlyArray<Raw>>): Raw =>
  raw(strings.reduce((out, s, i) => {
    const value = values[i - 1]
    const text = Array.isArray(value)
      ? value.map((v: Raw) => v.html).join("")
      : typeof value === "object"
      ? (value as Raw).html
      : escape(String(value))
    return out + text + s
  }))

const css = `
:root{--ink:#17212b;--muted:#5b6775;--line:#e3e7ec;--bg:#f5f7fa;--card:#fff;--brand:#4f46e5;--brand-ink:#fff;--warn:#b45309;--ok:#047857;--bad:#b91c1c}
*{box-sizing:border-box}body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--ink);background:var(--bg)}
header{display:flex;flex-wrap:wrap;align-items:center;justify-content:space-between;gap:.5rem 1rem;padding:.75rem 1.25rem;background:var(--card);border-bottom:1px solid var(--line)}
.brand{font-weight:700;letter-spacing:.02em}.brand span{color:var(--brand)}
main{max-width:960px;margin:1.5rem auto;padding:0 1rem;display:grid;gap:1rem}main>*,.grid>*{min-width:0}
.card{background:var(--card);border:1px solid var(--line);border-radius:12px;padding:1.25rem}
h1{font-size:1.35rem;margin:0 0 .25rem}h2{font-size:1rem;margin:0 0 .75rem}.muted{color:var(--muted)}
.grid{display:grid;gap:1rem;grid-template-columns:repeat(auto-fit,minmax(240px,1fr))}
label{display:block;font-weight:600;margin:.75rem 0 .25rem}
input[type=email],input[type=password]{width:100%;padding:.6rem .7rem;border:1px solid var(--line);border-radius:8px;font:inherit}
button,.button{display:inline-flex;align-items:center;gap:.35rem;padding:.55rem .9rem;border-radius:8px;border:1px solid var(--brand);background:var(--brand);color:var(--brand-ink);font:inherit;font-weight:600;cursor:pointer}
button.secondary{background:var(--card);color:var(--brand)}button:disabled{opacity:.5;cursor:not-allowed}
.login{max-width:380px;margin:4rem auto}.login button{width:100%;justify-content:center;margin-top:1rem}
.alert{padding:.7rem .9rem;border-radius:8px;border:1px solid}.alert.bad{color:var(--bad);border-color:#fecaca;background:#fef2f2}
.alert.ok{color:var(--ok);border-color:#a7f3d0;background:#ecfdf5}
code,pre{font:13px/1.5 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}code{overflow-wrap:anywhere}
.key{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem;overflow-wrap:anywhere}.key code{background:var(--bg);padding:.4rem .6rem;border-radius:6px;word-break:break-all}
details summary{cursor:pointer;color:var(--brand);font-weight:600}details[open] summary{margin-bottom:.5rem}
.bar{height:10px;border-radius:99px;background:var(--bg);overflow:hidden;margin:.5rem 0}.bar>span{display:block;height:100%;background:var(--brand)}
.big{font-size:1.6rem;font-weight:700}
.line{display:flex;gap:.5rem;align-items:flex-start;margin:.5rem 0}.line pre{flex:1;min-width:0;margin:0;background:var(--bg);padding:.5rem .6rem;border-radius:6px;overflow-x:auto}
svg{width:100%;height:auto}svg rect.calls{fill:var(--brand)}svg rect.refunded{fill:#f59e0b}svg text{font-size:10px;fill:var(--muted)}
.copied{color:var(--ok);font-weight:600}
`

/** Copy buttons: `data-copy` holds the text; a line says "Copied" for two seconds. */
const copyScript = `
document.querySelectorAll("[data-copy]").forEach(function (button) {
  button.hidden = false;
  button.addEventListener("click", function () {
    navigator.clipboard.writeText(button.getAttribute("data-copy")).then(function () {
      var label = button.textContent; button.textContent = "Copied"; button.classList.add("copied");
      setTimeout(function () { button.textContent = label; button.classList.remove("copied"); }, 2000);
    });
  });
});`

export interface Page {
  readonly body: string
  /** The nonce the page's inline script carries (Content-Security-Policy). */
  readonly nonce: string
}

export const layout = (title: string, nonce: string, header: Raw, content: Raw, script = true): string =>
  `<!doctype html>${
    html`<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${title}</title><style>${raw(css)}</style></head>
<body><header><div class="brand">Ad<span>Intel</span></div>${header}</header>
<main>${content}</main>${script ? html`<script nonce="${nonce}">${raw(copyScript)}</script>` : raw("")}</body></html>`.html
  }`

export const loginPage = (
  options: { readonly nonce: string; readonly next?: string | undefined; readonly email?: string; readonly error?: string }
): string =>
  layout(
    "Sign in · AdIntel",
    options.nonce,
    raw(""),
    html`<section class="card login">
<h1>Sign in</h1><p class="muted">Manage your API key, usage and logs.</p>
${options.error ? html`<p class="alert bad" role="alert">${options.error}</p>` : raw("")}
<form method="post" action="/login">
<label for="email">E-mail</label><input id="email" name="email" type="email" autocomplete="username" required value="${options.email ?? ""}">
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
${options.next ? html`<input type="hidden" name="next" value="${options.next}">` : raw("")}
<button type="submit">Sign in</button>
</form></section>`,
    false
  )

/** `adi_` and the last four characters; the rest as dots. */
export const maskKey = (key: string) => `${key.slice(0, 4)}${"•".repeat(12)}${key.slice(-4)}`

const number = (n: number) => n.toLocaleString("en-US")

/** Bars of calls per day (refunded ones stacked in another colour), labelled every 5 days. */
const usageChart = (days: KeyPageData["days"]): Raw => {
  const width = 600
  const height = 140
  const top = Math.max(1, ...days.map((d) => d.calls))
  const slot = width / days.length
  const bars = days.map((d, i) => {
    const h = ((height - 20) * d.calls) / top
    const r = ((height - 20) * d.refunded) / top
    const x = (i * slot + 2).toFixed(1)
    const w = Math.max(1, slot - 4).toFixed(1)
    return html`<g><title>${d.day}: ${d.calls} calls${d.refunded ? `, ${d.refunded} refunded` : ""}</title>
<rect class="calls" x="${x}" y="${(height - 20 - h).toFixed(1)}" width="${w}" height="${h.toFixed(1)}"></rect>
<rect class="refunded" x="${x}" y="${(height - 20 - r).toFixed(1)}" width="${w}" height="${r.toFixed(1)}"></rect>
${i % 5 === 0 ? html`<text x="${x}" y="${height - 5}">${d.day.slice(5)}</text>` : raw("")}</g>`
  })
  const total = days.reduce((sum, d) => sum + d.calls, 0)
  return html`<svg viewBox="0 0 ${width} ${height}" role="img" aria-label="Calls per day over the last 30 days: ${total} in all">${bars}</svg>`
}

/** The connected MCP clients, each with a Disconnect button (issue 21). */
const connectedClients = (clients: ReadonlyArray<ConnectedClient>, baseUrl: string): Raw =>
  html`<section class="card" id="mcp-clients"><h2>Connected MCP clients</h2>
${
    clients.length === 0
      ? html`<p class="muted">None. MCP clients connect at <code>${baseUrl}/mcp</code>, with this key or by signing in here.</p>`
      : clients.map((client) =>
        html`<form method="post" action="${disconnectPath}" class="line mcp-client"><input type="hidden" name="id" value="${client.id}">
<div style="flex:1;min-width:0;overflow-wrap:anywhere"><strong>${client.name}</strong> <span class="muted">· ${client.redirectHosts.join(", ")} · connected ${
          client.connectedAt.toISOString().slice(0, 10)
        }</span></div><button type="submit" class="secondary">Disconnect</button></form>`
      )
  }
</section>`

export const keyPage = (
  data: KeyPageData,
  options: { readonly nonce: string; readonly baseUrl: string; readonly connected?: ReadonlyArray<ConnectedClient> | undefined }
): string => {
  const { caller, apiKey } = data
  const { credits, dailySearch } = caller
  const share = credits.limit === 0 ? 0 : Math.min(100, (100 * credits.used) / credits.limit)
  const searchesLeft = dailySearch.limit === null ? null : Math.max(0, dailySearch.limit - dailySearch.used)
  const regenerated = data.notice._tag === "Some"
  const lines = [
    ["Header (preferred)", `curl -H "X-API-Key: KEY" ${options.baseUrl}/api/v1/credits`],
    ["Bearer token", `curl -H "Authorization: Bearer KEY" ${options.baseUrl}/api/v1/credits`],
    ["Query parameter (fallback: ends up in URLs and logs)", `curl "${options.baseUrl}/api/v1/credits?api_key=KEY"`]
  ] as const
  return layout(
    "API key · AdIntel",
    options.nonce,
    html`<form method="post" action="/logout" class="key"><span class="muted">${data.email}</span><button class="secondary" type="submit">Sign out</button></form>`,
    html`
${regenerated ? html`<p class="alert ok" role="status">A new API key was created; the previous key no longer works. Copy the new key now.</p>` : raw("")}
<section class="card">
<h1>API key</h1>
<p class="muted">Send it with every call to <code>/api/v1/…</code>. Plan: <strong id="plan">${caller.plan}</strong></p>
<div class="key"><code id="masked-key">${maskKey(apiKey)}</code>
<button type="button" class="secondary" data-copy="${apiKey}" id="copy-key" hidden>Copy</button></div>
<details id="reveal"${regenerated ? raw(" open") : raw("")}><summary>Reveal key</summary><code id="api-key">${apiKey}</code></details>
<form method="post" action="/api/regenerate" style="margin-top:1rem">
${
      data.apiAccess
        ? html`<button type="submit" class="secondary" id="regenerate">Regenerate key</button> <span class="muted">The current key stops working at once.</span>`
        : html`<button type="submit" disabled id="regenerate">Regenerate key</button> <span class="muted">API access needs the Basic plan or higher.</span>`
    }
</form>
</section>
<div class="grid">
<section class="card" id="credits"><h2>Credits this month</h2>
<div class="big">${number(credits.total_remaining)} <span class="muted" style="font-size:1rem">left</span></div>
<div class="bar" role="progressbar" aria-valuemin="0" aria-valuemax="${credits.limit}" aria-valuenow="${credits.used}"><span style="width:${share.toFixed(1)}%"></span></div>
<p class="muted">${number(credits.used)} of ${number(credits.limit)} used · ${number(credits.addon_remaining)} add-on · resets ${
      data.periodEnd.toISOString().slice(0, 10)
    }</p></section>
<section class="card" id="daily-search"><h2>Short-video shop searches today</h2>
<div class="big">${searchesLeft === null ? "Unlimited" : number(searchesLeft)}</div>
<p class="muted">${
      dailySearch.limit === null ? "Premium: no daily limit" : `${number(dailySearch.used)} of ${number(dailySearch.limit)} used · resets at 00:00 UTC`
    }</p></section>
</div>
<section class="card"><h2>Calls, last 30 days <span class="muted" id="calls-total">· ${
      number(data.days.reduce((sum, d) => sum + d.calls, 0))
    } in all · busiest day ${number(Math.max(0, ...data.days.map((d) => d.calls)))}</span></h2>${usageChart(data.days)}
<p class="muted">Every metered call costs one credit; refunded calls (server errors) are shown in amber. Details: <a href="/api/usage">usage</a> · <a href="/api/logs">logs</a></p></section>
<section class="card"><h2>Sending the key</h2>
${
      lines.map(([label, line]) =>
        html`<div><strong>${label}</strong><div class="line"><pre>${line.replace("KEY", maskKey(apiKey))}</pre><button type="button" class="secondary" data-copy="${
          line.replace("KEY", apiKey)
        }" hidden>Copy</button></div></div>`
      )
    }
</section>
${options.connected === undefined ? raw("") : connectedClients(options.connected, options.baseUrl)}`
  )
}

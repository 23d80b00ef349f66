import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Webhooks, issue 44 (two small changes, one number: the branch was given 0104).
 *
 * One enabled webhook endpoint per URL and account. Registration now stores a URL as
 * WHATWG serialises it, without its fragment; the rows stored before are brought to that form
 * here (with `URL`, as registration does: SQL cannot), so that an old `https://Example.com`
 * and a new `https://example.com/` are one URL. Existing duplicates must not fail the index:
 * per account and URL the oldest enabled endpoint stays, takes the event types of the others,
 * and the others are disabled (like an endpoint disabled for failing: listed, nothing sent,
 * deleted by their owner). The index is partial (`where enabled`) so that a disabled
 * endpoint's URL can be registered again (SPEC-NOTES, "Disabling": that is how one resumes),
 * and over `md5(url)` so that no stored URL is too long for an index entry.
 *
 * `webhook_account_starts`: the attempts each claim started per account, at the claim's
 * instant, so that a claim (under the claims' advisory lock) starts no more than
 * `WEBHOOK_MAX_PER_ACCOUNT_PER_MINUTE` for one account in any 60 s, over every replica. A claim
 * forgets the rows older than a minute: the table holds about a minute of claims.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ readonly id: string; readonly url: string }>`select id::text, url from webhook_endpoints`
  for (const { id, url } of rows) {
    if (!URL.canParse(url)) continue
    const stored = new URL(url)
    stored.hash = ""
    if (stored.href !== url) yield* sql`update webhook_endpoints set url = ${stored.href} where id = ${id}::uuid`
  }
  yield* sql.unsafe(`
with ranked as (
  select id, account_id, url, events,
         row_number() over (partition by account_id, url order by created_at, id) as n
    from webhook_endpoints where enabled
), kept as (
  update webhook_endpoints w
     set events = w.events || array(
       select distinct e from ranked d, unnest(d.events) e
        where d.account_id = w.account_id and d.url = w.url and d.n > 1 and e <> all (w.events) order by e)
    from ranked k
   where k.id = w.id and k.n = 1
     and exists (select 1 from ranked d where d.account_id = k.account_id and d.url = k.url and d.n > 1)
)
update webhook_endpoints w set enabled = false from ranked d where d.id = w.id and d.n > 1;

create unique index webhook_endpoints_url_once on webhook_endpoints (account_id, md5(url)) where enabled;

create table webhook_account_starts (
  account_id uuid not null references accounts (id) on delete cascade,
  started_at timestamptz not null,
  attempts integer not null check (attempts > 0)
);
create index webhook_account_starts_account on webhook_account_starts (account_id, started_at);
create index webhook_account_starts_at on webhook_account_starts (started_at);
`)
})

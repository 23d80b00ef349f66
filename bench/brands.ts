/**
 * The brand tracker and the inbox (issue 19) on a generated world, timed through HTTP one request
 * at a time like bench/ads.ts (which runs this after its own shapes, on its loaded world):
 * - baseline: GET /api/v1/credits;
 * - the tracked-brands list of an account tracking the 25 busiest brands (their counts are
 *   computed on every call);
 * - a busy brand's ads (first page, and the next by its token), through the ad search;
 * - a follow that is already there (the account's lock, the brand's figures);
 * - the inbox with 500 digest items: its first page, and the unread count.
 * Prints p50/p95 of each and the p95 ratio against the baseline. Alone: `npm run bench:brands`
 * (BENCH_SCALE=demo by default here, 30,000 ads), on a server of its own.
 */
import { realpathSync } from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import pg from "pg"
import { type ScaleName, scales } from "../src/demo/World.js"
import { Figures, pgCpuMeter } from "./Figures.js"
import { createAccounts, loadWorld, runBench, startServer, timedClient, warmUpRounds, withBenchDatabase } from "./Scratch.js"

const samples = Number(process.env["BENCH_SAMPLES"] ?? 200)
const tracked = 25

/** The social brands with the most ads, most first. */
const busiest = async (url: string, limit: number) => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const { rows } = await client.query<{ id: string }>(
      `select adv.external_id as id from advertisers adv join ads a on a.advertiser_id = adv.id
        where adv.platform = 'social' group by adv.external_id order by count(*) desc, adv.external_id limit $1`,
      [limit]
    )
    return rows.map((r) => r.id)
  } finally {
    await client.end()
  }
}

/** 500 digest items in the account's inbox, as the digest job writes them. */
const fillInbox = async (url: string, key: string) => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    await client.query(
      `insert into notifications (account_id, type, title, body, data, created_at, dedupe_key)
       select k.account_id, 'brand_new_ads', 'Brand ' || n || ': 3 new ads', 'Brand ' || n || ' started 3 new ads.',
              jsonb_build_object('brand', jsonb_build_object('id', 'bench-' || n, 'name', 'Brand ' || n, 'domain', null),
                                 'count', 3, 'ads', '[]'::jsonb, 'since', null,
                                 'until', to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')),
              now() - make_interval(mins => n), 'bench:' || n
         from api_keys k, generate_series(1, 500) as n
        where k.key_hash = sha256(convert_to($1, 'UTF8')) and k.revoked_at is null`,
      [key]
    )
  } finally {
    await client.end()
  }
}

/**
 * Times the brand and inbox shapes on the world at `url` (loaded already), through `running` (a
 * benchmark server on it, without a rate limit: bench/ads.ts's) or a server of its own.
 */
export const measureBrands = async (url: string, dir: string, running?: { readonly port: number }) => {
  const [key] = await createAccounts(url, 1)
  await fillInbox(url, key!)
  const own = running === undefined
    ? await startServer(url, path.join(dir, "brands-server.log"), { RATE_LIMIT_PER_MINUTE: "100000", DEMO_DATA: "false" })
    : undefined
  const request = timedClient(`http://127.0.0.1:${(running ?? own)!.port}`, key!, await pgCpuMeter(url))
  try {
    const brands = await busiest(url, tracked)
    for (const id of brands) await request("/api/v1/brands/follow", { id })
    const busy = brands[0]!
    const token = (await request(`/api/v1/brands/ads?id=${busy}&limit=20`)).json.scroll_token as string
    const shapes: Array<[name: string, next: () => [string, unknown?]]> = [
      ["GET /api/v1/credits (baseline)", () => ["/api/v1/credits"]],
      [`GET /api/v1/brands (${tracked} tracked)`, () => ["/api/v1/brands?page_size=25"]],
      ["GET /api/v1/brands/ads page 1", () => [`/api/v1/brands/ads?id=${busy}&limit=20`]],
      ["GET /api/v1/brands/ads page 2", () => [`/api/v1/brands/ads?scroll_token=${encodeURIComponent(token)}`]],
      ["POST /api/v1/brands/follow (again)", () => ["/api/v1/brands/follow", { id: busy }]],
      ["GET /api/v1/notifications", () => ["/api/v1/notifications"]],
      ["GET .../unread-count", () => ["/api/v1/notifications/unread-count"]]
    ]
    for (let n = 0; n < warmUpRounds(20, samples); n++) for (const [, next] of shapes) await request(...next())
    const figures = new Figures()
    // Interleaved, so a burst of noise on the machine hits every shape alike.
    for (let n = 0; n < samples; n++) {
      for (const [name, next] of shapes) figures.add(name, await request(...next()))
    }
    figures.print("brand tracker and inbox", "GET /api/v1/credits (baseline)")
  } finally {
    await own?.stop()
  }
}

// Run as a script (from the sources or a compiled tree), not imported by bench/ads.ts. Node names
// the main module by its real path: a script reached through a symbolic link is still this one.
if (process.argv[1] !== undefined && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const scaleName = (process.env["BENCH_SCALE"] ?? "demo") as ScaleName
  runBench(() =>
    withBenchDatabase("bench-brands", async (url, dir, loaded) => {
      if (!loaded) {
        console.log(`Brand tracker, scale ${scaleName} (${scales[scaleName].ads.toLocaleString("en")} ads). Loading…`)
        await loadWorld(url, { scale: scaleName, seed: 1, only: ["stores", "landers", "advertisers", "ads"] })
      }
      await measureBrands(url, dir)
    })
  )
}

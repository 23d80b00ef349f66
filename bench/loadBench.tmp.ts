import { ensureDatabase, startCluster } from "../src/platform/db/EmbeddedPostgres.js"
import { Effect } from "effect"
import { loadWorld } from "./Scratch.js"
const main = async () => {
  const cluster = await startCluster({ dataDir: "/work/benchdb", persistent: true })
  await ensureDatabase(cluster.adminUrl, "bench-ads")
  const url = cluster.urlFor("bench-ads")
  console.log("URL", url)
  const t0 = Date.now()
  await loadWorld(url, { scale: "bench", seed: 1, only: ["stores", "landers", "advertisers", "ads"], onProgress: (p: unknown) => Effect.sync(() => console.log(JSON.stringify(p), (Date.now() - t0) / 1000)) } as any)
  console.log("loaded and counted in", (Date.now() - t0) / 1000, "s")
  await new Promise(() => {}) // keep the cluster up
}
main().catch((e) => { console.error(e); process.exit(1) })

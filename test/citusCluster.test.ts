import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { citusCluster, citusInstalled } from "./support/CitusCluster.js"
import { withAdmin } from "./support/RunDatabases.js"
import { tempDir } from "./support/TempDir.js"

/** The rows `text` answers on `url`. */
const rowsOn = (url: string, text: string) => withAdmin(url, async (client) => (await client.query(text)).rows)

describe("a Citus cluster for the tests (issue 45)", () => {
  it.live.skipIf(!citusInstalled())("a coordinator and two workers: a distributed table's rows are spread over both, its top-k merged on the coordinator", () =>
    Effect.scoped(Effect.gen(function*() {
      const { coordinator, workers } = yield* citusCluster(yield* tempDir("citus"))
      expect(yield* rowsOn(coordinator.adminUrl, "select count(*)::int as n from citus_get_active_worker_nodes()")).toEqual([{ n: 2 }])
      yield* rowsOn(coordinator.adminUrl, "create table probe (id bigint primary key, body text)")
      yield* rowsOn(coordinator.adminUrl, "select create_distributed_table('probe', 'id')")
      yield* rowsOn(coordinator.adminUrl, "insert into probe select i, 'ad ' || i from generate_series(1, 1000) i")
      expect(yield* rowsOn(coordinator.adminUrl, "select count(*)::int as n from probe")).toEqual([{ n: 1000 }])
      // Each worker holds some of the rows, none all of them: the rows each worker's shards hold.
      const held = yield* rowsOn(coordinator.adminUrl, `
        select p.nodeport as port, sum(r.result::int)::int as n
          from run_command_on_shards('probe', 'select count(*) from %s') r
          join citus_shards p on p.shardid = r.shardid
         group by p.nodeport order by p.nodeport`)
      expect(held.map((row) => row.port).sort()).toEqual(workers.map((worker) => Number(new URL(worker.adminUrl).port)).sort())
      const counts = held.map((row) => row.n as number)
      expect(counts.reduce((a, b) => a + b, 0)).toBe(1000)
      expect(counts.every((n) => n > 0 && n < 1000)).toBe(true)
      const plan = (yield* rowsOn(coordinator.adminUrl, "explain select id from probe order by body limit 5")).map((r) => r["QUERY PLAN"]).join("\n")
      expect(plan).toContain("Custom Scan (Citus Adaptive)")
      expect(plan).toMatch(/Task Count: 32/)
      expect(plan).toMatch(/Limit/)
    })), 120_000)
})

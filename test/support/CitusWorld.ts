import { Context, Effect, Layer } from "effect"
import { loadSmallWorld, smallWorldServerOn } from "./AdWorld.js"
import { type CitusCluster, citusCluster } from "./CitusCluster.js"
import { clientOn, databaseUrl, TestDatabaseUrl } from "./RunDatabases.js"
import { tempDir } from "./TempDir.js"

/** A test's Citus cluster, for what a test does on its nodes beside the server. */
export class Nodes extends Context.Tag("test/CitusNodes")<Nodes, CitusCluster>() {}

/**
 * A test server (with the import) whose database is a Citus cluster's coordinator (issue 45),
 * started for the file; with the small world loaded when `world`.
 */
export const clusterServer = (world: boolean) =>
  Layer.unwrapScoped(Effect.gen(function*() {
    const cluster = yield* citusCluster(yield* tempDir("citus-world"))
    const database = clientOn.pipe(Layer.provideMerge(Layer.succeed(TestDatabaseUrl, databaseUrl(cluster.coordinator.adminUrl, "postgres"))))
    const server = smallWorldServerOn(database, {})
    return (world ? Layer.effectDiscard(loadSmallWorld).pipe(Layer.provideMerge(server)) : server).pipe(Layer.merge(Layer.succeed(Nodes, cluster)))
  }))

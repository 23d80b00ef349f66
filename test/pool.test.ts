import { describe, expect, layer } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { testDatabaseWith } from "./support/TestDatabase.js"

// One pooled connection, so the next statement surely borrows the one given back.
describe("the connection pool (platform/db/Database.ts)", () => {
  layer(testDatabaseWith({ DATABASE_POOL_SIZE: "1" }))((it) => {
    const borrowed = (statements: ReadonlyArray<string>) =>
      Effect.scoped(Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const connection = yield* sql.reserve
        for (const statement of statements) yield* Effect.ignore(connection.executeUnprepared(statement, [], undefined))
      }))

    it.effect("a connection given back in a failed transaction (its ROLLBACK cancelled) is rolled back: the next statement runs", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* sql`create table pool_probe (n int)`
        // What an import lane left when a late cancel landed on its ROLLBACK: a failed transaction.
        yield* borrowed(["begin", "insert into pool_probe values (1)", "select 1/0"])
        expect(yield* sql<{ n: number }>`select count(*)::int as n from pool_probe`).toEqual([{ n: 0 }])
      }))

    it.effect("a connection given back inside an open transaction is rolled back: nothing it wrote is kept or seen", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* borrowed(["begin", "insert into pool_probe values (2)"])
        expect(yield* sql<{ n: number; open: boolean }>`
          select (select count(*)::int from pool_probe) as n, now() <> statement_timestamp() as open`).toEqual([{ n: 0, open: false }])
      }))
  })
})

import * as Reactivity from "@effect/experimental/Reactivity"
import { SqlClient } from "@effect/sql"
import type { Connection } from "@effect/sql/SqlConnection"
import { SqlError } from "@effect/sql/SqlError"
import { PgClient } from "@effect/sql-pg"
import { Clock, Config, Context, Duration, Effect, FiberRef, Layer, Option, Redacted, Ref, Schedule, Schema, type Scope } from "effect"
import type { ConfigError } from "effect/ConfigError"
import type { ParseError } from "effect/ParseResult"
import Pg from "pg"
import { sqlStateOf } from "./SqlState.js"

/**
 * Reads served by streaming replicas (issue 31, R1), after GitLab's database load balancing: the
 * research repositories read through `ReadSql`; everything that writes, meters or must read its
 * own writes keeps `SqlClient.SqlClient` (the primary).
 *
 * - `ReadSql` is read-only whatever serves it: every connection of its pools opens with
 *   `default_transaction_read_only`, so a write through it fails (SQLSTATE 25006) even when no
 *   replica is configured and the primary serves it.
 * - Each statement goes to the next healthy replica in turn, else to the primary.
 * - Every `checkEvery`, each replica's lag is read: none when it has replayed the primary's
 *   current WAL position, else the time it takes to replay that far (waited for up to
 *   `REPLICA_MAX_LAG`, at most 2 s; past that, at least the time since the last transaction it
 *   replayed). A replica past
 *   `REPLICA_MAX_LAG`, or that does not answer within `checkTimeout`, is out until a check finds
 *   it well again.
 * - A statement that fails on a replica is run once more on the primary, in the same call (and
 *   so the same credit); a replica whose connection failed is taken out at once.
 * - Reads that must see this process's own recent writes of a kind (`ReadYourWrites`) go only
 *   to replicas that have replayed the last such write, as of their last check, else to the primary.
 */

/** The research repositories' client: read-only, on a healthy replica or the primary. */
export class ReadSql extends Context.Tag("adintel/ReadSql")<ReadSql, SqlClient.SqlClient>() {}

/** A replica as the last check found it: what `/ready` and the admin API show. */
export interface ReplicaState {
  /** `replica-1`, `replica-2`, ...: their order in `DATABASE_REPLICA_URLS` (a URL holds a password). */
  readonly name: string
  readonly healthy: boolean
  /** Replay lag in milliseconds; `null` when it could not be read. */
  readonly lagMs: number | null
  /** Why it is out, in PostgreSQL's words or ours; `null` when it is in. */
  readonly reason: string | null
  /** When it was last checked (ISO 8601), `null` before the first check. */
  readonly checkedAt: string | null
}

export class ReplicaHealth extends Context.Tag("adintel/ReplicaHealth")<ReplicaHealth, {
  /** Every configured replica's state, in configuration order. */
  readonly states: Effect.Effect<ReadonlyArray<ReplicaState>>
  /** Checks every replica now (the background check does the same every `checkEvery`). */
  readonly check: Effect.Effect<void>
}>() {}

/**
 * The kinds of rows a process writes on the primary and then reads through `ReadSql`: a closed
 * set, one floor each.
 */
export type WrittenKind = "transcripts"

/**
 * Read-your-writes for replica reads (issue 31, after GitLab's sticky reads): after `wrote(kind)`
 * records the primary's WAL position, the reads inside `fresh(kind)` are served only by replicas
 * whose last check found that position replayed, else by the primary. Within one process: another
 * process's reads do not know of this one's writes (SPEC-NOTES "Read replicas").
 */
export class ReadYourWrites extends Context.Tag("adintel/ReadYourWrites")<ReadYourWrites, {
  /** After a committed write of `kind`: its reads wait for a replica that has replayed it. */
  readonly wrote: (kind: WrittenKind) => Effect.Effect<void>
  /** Runs `reads` on replicas that have replayed this process's last write of `kind`, else the primary. */
  readonly fresh: (kind: WrittenKind) => <A, E, R>(reads: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}>() {}

/** A WAL position (`16/B374D848`) as a number that orders like it. */
const lsnOf = (text: string): bigint => {
  const [high, low] = text.split("/")
  return (BigInt(`0x${high}`) << 32n) | BigInt(`0x${low}`)
}

/** `DATABASE_REPLICA_URLS`: comma-separated URLs of streaming replicas of the primary (R1). */
export const replicaUrls = Config.redacted("DATABASE_REPLICA_URLS").pipe(
  Config.map((urls) =>
    Redacted.value(urls).split(",").map((url) => url.trim()).filter((url) => url.length > 0).map((url) => Redacted.make(url))),
  Config.withDefault<ReadonlyArray<Redacted.Redacted>>([])
)

/** `REPLICA_MAX_LAG`: the replay lag past which a replica serves no reads (R1: 5 seconds). */
export const maxLag = Config.duration("REPLICA_MAX_LAG").pipe(Config.withDefault(Duration.seconds(5)))

/** How often each replica's lag is read. */
const checkEvery = Duration.seconds(2)
/** A check that takes longer than this finds the replica out. */
const checkTimeout = Duration.seconds(2)
/** How often a check looks again at a replica short of the primary's position, and for how long at most (never past `REPLICA_MAX_LAG`). */
const lookEvery = Duration.millis(50)
const catchUpWaitMax = Duration.seconds(2)

/** A pool whose every connection is read-only and bounded like the primary's. */
const readOnlyClient = (url: Redacted.Redacted, pool: PoolOptions, name: string) =>
  PgClient.fromPool({
    acquire: Effect.acquireRelease(
      Effect.sync(() =>
        new Pg.Pool({
          connectionString: Redacted.value(url),
          max: pool.max,
          application_name: `adintel-read-${name}`,
          statement_timeout: pool.statementTimeoutMs,
          options: "-c default_transaction_read_only=on",
          // A replica that went away: a connection attempt gives up soon, and the check says so.
          connectionTimeoutMillis: Duration.toMillis(checkTimeout)
        }).on("error", () => undefined)),
      (p) => Effect.promise(() => p.end())
    ),
    applicationName: `adintel-read-${name}`
  })

export interface PoolOptions {
  readonly max: number
  readonly statementTimeoutMs: number
}

const LagRow = Schema.Struct({
  caught_up: Schema.NullOr(Schema.Boolean),
  behind_ms: Schema.NullOr(Schema.Number),
  standby: Schema.Boolean,
  replayed: Schema.NullOr(Schema.String)
})
const LsnRow = Schema.Struct({ lsn: Schema.String })

/** Whether a failure on a replica says its connection is gone (class 08, admin shutdown 57P): it is taken out at once. */
const connectionLost = (error: SqlError) => {
  const code = sqlStateOf(error)
  return code === undefined ? error.message.includes("connection") : code.startsWith("08") || code.startsWith("57P")
}

/**
 * `ReadSql` and `ReplicaHealth` over the primary at `primaryUrl` and the configured replicas.
 * Needs the primary's client (`SqlClient.SqlClient`) for its WAL position.
 */
export const readLayer = (
  primaryUrl: Redacted.Redacted,
  pool: PoolOptions
): Layer.Layer<ReadSql | ReplicaHealth | ReadYourWrites, ConfigError | SqlError, SqlClient.SqlClient> =>
  Layer.scopedContext(Effect.gen(function*() {
    const primarySql = yield* SqlClient.SqlClient
    const [urls, lagLimit] = yield* Effect.all([replicaUrls, maxLag])
    const catchUpWait = Duration.min(lagLimit, catchUpWaitMax)
    const primary = yield* readOnlyClient(primaryUrl, pool, "primary")
    const replicas = yield* Effect.forEach(urls, (url, i) =>
      Effect.map(readOnlyClient(url, pool, `replica-${i + 1}`), (client) => ({ name: `replica-${i + 1}`, client })))
    const states = yield* Ref.make<ReadonlyArray<ReplicaState>>(
      replicas.map(({ name }) => ({ name, healthy: false, lagMs: null, reason: "not checked yet", checkedAt: null }))
    )
    const next = yield* Ref.make(0)
    /** Each replica's replayed WAL position at its last check (0: unknown). */
    const replayed = yield* Ref.make<ReadonlyArray<bigint>>(replicas.map(() => 0n))
    /** The WAL position the current fiber's reads need replayed (0: any healthy replica). */
    const needed = yield* FiberRef.make(0n)
    /** Per kind, the primary's WAL position after this process's last write of it. */
    const floors = yield* Ref.make<ReadonlyMap<WrittenKind, bigint>>(new Map())

    const setState = (index: number, state: Omit<ReplicaState, "name" | "checkedAt">) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Ref.update(states, (all) => all.map((s, i) => (i === index ? { ...state, name: s.name, checkedAt: new Date(now).toISOString() } : s))))

    /**
     * One replica's lag against the primary's WAL position `lsn`, read at `readAt`: 0 when it has
     * replayed that far; else the time it takes to get there, looked at every `lookEvery` for up
     * to `catchUpWait`. A replica still short of it then is as late as the longer of that wait and
     * the time since the last transaction it replayed. (The time since its last replayed
     * transaction alone made a replica that was a moment from a write made after a quiet second
     * look a second late: under load, with calls over a second apart, it was out at most checks.)
     */
    const checkOne = (index: number, lsn: string, readAt: number) => {
      const { client } = replicas[index]!
      const look = Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.flatMap(
          client`select pg_last_wal_replay_lsn() >= ${lsn}::pg_lsn as caught_up, pg_last_wal_replay_lsn()::text as replayed,
                        (extract(epoch from (${new Date(now)}::timestamptz - pg_last_xact_replay_timestamp())) * 1000)::float8 as behind_ms,
                        pg_is_in_recovery() as standby`,
          Schema.decodeUnknown(Schema.Tuple(LagRow))
        )).pipe(
        Effect.map(([row]) => row),
        Effect.timeoutFail({ duration: checkTimeout, onTimeout: () => "it did not answer within 2 seconds" })
      )
      const settled = (row: typeof LagRow.Type) => !row.standby || row.caught_up === true
      const lagAfter = Effect.gen(function*() {
        const first = yield* look
        if (settled(first)) return { row: first, lagMs: 0 }
        const until = readAt + Duration.toMillis(catchUpWait)
        const lookAgain: Effect.Effect<typeof LagRow.Type, SqlError | ParseError | string> = Effect.flatMap(
          Effect.zipRight(Effect.sleep(lookEvery), look),
          (row) => Effect.flatMap(Clock.currentTimeMillis, (now) => settled(row) || now >= until ? Effect.succeed(row) : lookAgain)
        )
        const row = yield* lookAgain
        const waited = (yield* Clock.currentTimeMillis) - readAt
        return { row, lagMs: row.caught_up === true ? waited : Math.max(waited, row.behind_ms ?? Number.POSITIVE_INFINITY) }
      })
      return lagAfter.pipe(
        Effect.matchEffect({
          onFailure: (error) =>
            setState(index, { healthy: false, lagMs: null, reason: typeof error === "string" ? error : `it cannot be reached (${error.message})` }),
          onSuccess: ({ lagMs, row }) => {
            const position = row.replayed === null ? 0n : lsnOf(row.replayed)
            return Effect.zipRight(Ref.update(replayed, (all) => all.map((p, i) => (i === index ? position : p))), stateFrom(index, row, lagMs))
          }
        })
      )
    }

    /** A replica's state from its check: in when it is a standby within `REPLICA_MAX_LAG`. */
    const stateFrom = (index: number, row: typeof LagRow.Type, measured: number) => {
      if (!row.standby) return setState(index, { healthy: false, lagMs: null, reason: "it is not a standby (pg_is_in_recovery() is false)" })
      const lagMs = Math.max(0, Math.round(measured))
      const healthy = lagMs <= Duration.toMillis(lagLimit)
      return setState(index, {
        healthy,
        lagMs: Number.isFinite(lagMs) ? lagMs : null,
        reason: healthy ? null : `its replay lag is over REPLICA_MAX_LAG (${Duration.format(lagLimit)})`
      })
    }

    const check = replicas.length === 0 ? Effect.void : Effect.gen(function*() {
      const readAt = yield* Clock.currentTimeMillis
      const [{ lsn }] = yield* Effect.flatMap(primarySql`select pg_current_wal_lsn()::text as lsn`, Schema.decodeUnknown(Schema.Tuple(LsnRow)))
      yield* Effect.forEach(replicas, (_, i) => checkOne(i, lsn, readAt), { concurrency: "unbounded", discard: true })
    }).pipe(
      Effect.catchAll((error) => Effect.logWarning("Replicas: the primary's WAL position could not be read; replicas keep their state", error)),
      Effect.withSpan("ReplicaHealth.check")
    )

    if (replicas.length > 0) {
      yield* check
      yield* Effect.forkScoped(Effect.repeat(check, Schedule.spaced(checkEvery)))
    }

    /** The next healthy replica in turn that has replayed what the fiber's reads need, if any. */
    const pick = Effect.gen(function*() {
      const [all, positions, floor] = yield* Effect.all([Ref.get(states), Ref.get(replayed), FiberRef.get(needed)])
      const healthy = all.flatMap((s, i) => (s.healthy && positions[i]! >= floor ? [i] : []))
      if (healthy.length === 0) return Option.none<number>()
      const turn = yield* Ref.getAndUpdate(next, (n) => n + 1)
      return Option.some(healthy[turn % healthy.length]!)
    })

    const takeOut = (index: number, error: SqlError) =>
      setState(index, { healthy: false, lagMs: null, reason: `a statement lost its connection (${error.message})` })

    /** On the primary's read-only pool, for one statement. */
    const onPrimary = <A>(run: (connection: Connection) => Effect.Effect<A, SqlError>) =>
      Effect.scoped(Effect.flatMap(primary.reserve, run))

    /** A statement on a replica's connection, run once more on the primary when it fails there. */
    const withFallback = (index: number, connection: Connection): Connection => {
      const guarded = <A>(run: (c: Connection) => Effect.Effect<A, SqlError>) =>
        run(connection).pipe(
          Effect.catchAll((error) =>
            Effect.zipRight(
              connectionLost(error) ? takeOut(index, error) : Effect.void,
              Effect.zipRight(
                Effect.logWarning(`Replicas: a read failed on ${replicas[index]!.name}; run again on the primary`, error),
                onPrimary(run)
              )
            )
          )
        )
      return {
        execute: (sql, params, transformRows) => guarded((c) => c.execute(sql, params, transformRows)),
        executeRaw: (sql, params) => guarded((c) => c.executeRaw(sql, params)),
        executeValues: (sql, params) => guarded((c) => c.executeValues(sql, params)),
        executeUnprepared: (sql, params, transformRows) => guarded((c) => c.executeUnprepared(sql, params, transformRows)),
        // A stream that fails part-way has been partly consumed: it is not run again.
        executeStream: (sql, params, transformRows) => connection.executeStream(sql, params, transformRows)
      }
    }

    /** A connection for one statement: a healthy replica's (falling back), else the primary's. */
    const acquirer: Effect.Effect<Connection, SqlError, Scope.Scope> = Effect.flatMap(pick, Option.match({
      onNone: () => primary.reserve,
      onSome: (index) =>
        replicas[index]!.client.reserve.pipe(
          Effect.map((connection) => withFallback(index, connection)),
          // No connection to it at all: out at once, and this statement on the primary.
          Effect.catchAll((error) => Effect.zipRight(takeOut(index, error), primary.reserve))
        )
    }))

    const read = yield* SqlClient.make({
      acquirer,
      // A transaction stays on one server: the primary's read-only pool (its reads are consistent there).
      transactionAcquirer: primary.reserve,
      compiler: PgClient.makeCompiler(),
      spanAttributes: [["db.system.name", "postgresql"], ["adintel.read", "replicas"]]
    })

    // The insert position, which the commit just made is behind: with `synchronous_commit=off`
    // the write position (`pg_current_wal_lsn()`) can still stand before it (SPEC-NOTES).
    const wrote = (kind: WrittenKind) =>
      replicas.length === 0 ? Effect.void : primarySql`select pg_current_wal_insert_lsn()::text as lsn`.pipe(
        Effect.flatMap(Schema.decodeUnknown(Schema.Tuple(LsnRow))),
        Effect.flatMap(([{ lsn }]) => Ref.update(floors, (all) => new Map(all).set(kind, lsnOf(lsn)))),
        // Not known where the primary is: this kind's reads stay on it until the next write.
        Effect.catchAll(() => Ref.update(floors, (all) => new Map(all).set(kind, 2n ** 64n))),
        Effect.withSpan("ReadYourWrites.wrote", { attributes: { kind } })
      )
    const fresh = (kind: WrittenKind) => <A, E, R>(reads: Effect.Effect<A, E, R>) =>
      Effect.flatMap(Ref.get(floors), (all) => Effect.locally(reads, needed, all.get(kind) ?? 0n))

    return Context.make(ReadSql, read).pipe(
      Context.add(ReplicaHealth, { states: Ref.get(states), check }),
      Context.add(ReadYourWrites, { wrote, fresh })
    )
  }).pipe(Effect.provide(Reactivity.layer)))

import { NodeRuntime } from "@effect/platform-node"
import { Cause, Console, Effect, Layer, Option, Predicate } from "effect"
import { AppConfig } from "./platform/AppConfig.js"
import * as Database from "./platform/db/Database.js"
import * as Tracing from "./platform/telemetry/Tracing.js"
import { DemoData } from "./demo/DemoData.js"
import { FirstStartLive } from "./demo/FirstStart.js"
import * as Server from "./app/Server.js"

/** The composition root: configuration, the database, the server, the first start's demo data. */
const Main = Layer.mergeAll(
  Server.layer(),
  FirstStartLive.pipe(Layer.provide(DemoData.Default), Layer.provide(Server.ServicesLive))
).pipe(
  Layer.provide(AppConfig.layer),
  Layer.provide(Database.layer),
  // Outermost: every layer built after it (the database's included) runs under its tracer.
  Layer.provide(Tracing.layer)
)

Layer.launch(Main).pipe(
  // An embedded database that cannot start, or a database that skipped a migration, is its
  // sentence (what, why, the fix) on stderr, not a stack trace; any other failure is reported in
  // full, as runMain would. Exit code 1.
  Effect.tapErrorCause((cause) => {
    const failure = Cause.failureOption(cause).pipe(
      Option.filter((e) => Predicate.isTagged(e, "EmbeddedDatabaseUnavailable") || Predicate.isTagged(e, "MigrationSkipped"))
    )
    if (Option.isSome(failure)) return Console.error(failure.value.message)
    return Cause.isInterruptedOnly(cause) ? Effect.void : Effect.logError(cause)
  }),
  NodeRuntime.runMain({ disableErrorReporting: true })
)

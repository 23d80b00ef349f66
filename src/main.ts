import { NodeRuntime } from "@effect/platform-node"
import { Layer } from "effect"
import { AppConfig } from "./AppConfig.js"
import * as Database from "./db/Database.js"
import { DemoData } from "./demo/DemoData.js"
import { FirstStartLive } from "./demo/FirstStart.js"
import * as Server from "./Server.js"

/** The composition root: configuration, the database, the server, the first start's demo data. */
const Main = Layer.mergeAll(
  Server.layer(),
  FirstStartLive.pipe(Layer.provide(DemoData.Default), Layer.provide(Server.ServicesLive))
).pipe(
  Layer.provide(AppConfig.layer),
  Layer.provide(Database.layer)
)

Layer.launch(Main).pipe(NodeRuntime.runMain)

import m0001 from "./0001_gateway.js"

/** Forward-only, numbered, run in order at start-up by the `@effect/sql` Migrator. */
export const migrations = {
  "0001_gateway": m0001
}

import { describe, expect, it } from "@effect/vitest"
import { Either, Schema } from "effect"
import { readFileSync } from "node:fs"
import { type EntityName, entityNames, records } from "../src/ingest/Records.js"

/** docs/DATA.md shows one example line per entity: each must be a record the import accepts. */
describe("docs/DATA.md", () => {
  const doc = readFileSync(new URL("../docs/DATA.md", import.meta.url), "utf8")
  const sections = doc.split(/^### /m).slice(1)

  it("documents every entity", () => {
    expect(sections.map((s) => s.split("\n")[0]!.trim())).toEqual(entityNames)
  })

  it("shows example lines that validate against their entity's schema", () => {
    for (const section of sections) {
      const entity = section.split("\n")[0]!.trim() as EntityName
      const examples = [...section.matchAll(/```json\n(.+)\n```/g)].map((m) => JSON.parse(m[1]!))
      expect(examples.length).toBeGreaterThan(0)
      for (const example of examples) {
        const decoded = Schema.decodeUnknownEither(records[entity].schema as Schema.Schema<unknown, unknown>)(example)
        expect([entity, Either.isRight(decoded)]).toEqual([entity, true])
      }
    }
  })
})

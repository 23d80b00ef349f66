import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { walSettings } from "../src/platform/db/EmbeddedPostgres.js"

// No Docker engine runs here; the compose file is still what operators start (README).
describe("docker-compose.yml", () => {
  const compose = readFileSync(new URL("../docker-compose.yml", import.meta.url), "utf8")

  it("starts its PostgreSQL with the embedded server's checkpoint spacing for bulk imports", () => {
    const command = compose.match(/^ {4}command: (\[.*\])$/m)
    expect(command).not.toBeNull()
    const argv = JSON.parse(command![1]!) as Array<string>
    expect(argv[0]).toBe("postgres")
    for (const setting of walSettings) expect(argv).toContain(setting)
  })
})

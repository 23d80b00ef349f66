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

  it("runs a streaming replica of db and gives its URL to the app (issue 31, R1)", () => {
    const replica = compose.slice(compose.indexOf("\n  replica:\n"), compose.indexOf("\n  app:\n"))
    expect(replica).toContain("image: postgres:16")
    // A base backup of db through its own slot, written as a standby, then a hot standby.
    expect(replica).toMatch(/pg_basebackup -h db -U adintel -D "\$\$PGDATA" -R -X stream -C -S adintel_replica_1/)
    expect(replica).toContain("exec postgres -c hot_standby=on")
    expect(replica).toMatch(/- replica-data:\/var\/lib\/postgresql\/data/)
    // The primary lets it stream: the script its image runs at initdb.
    expect(compose).toContain("./docker/primary-replication.sh:/docker-entrypoint-initdb.d/primary-replication.sh:ro")
    expect(readFileSync(new URL("../docker/primary-replication.sh", import.meta.url), "utf8")).toContain("host replication ${POSTGRES_USER} all scram-sha-256")
    expect(compose).toContain("DATABASE_REPLICA_URLS: ${DATABASE_REPLICA_URLS-postgres://adintel:adintel@replica:5432/adintel}")
    expect(compose).toMatch(/^volumes:\n {2}db-data:\n {2}replica-data:\n/m)
  })

  it("has a citus profile: a coordinator and two workers set up as the tests' cluster is, and the app on the coordinator (issue 45)", () => {
    const service = (name: string) => {
      const from = compose.indexOf(`\n  ${name}:\n`)
      const next = compose.slice(from + 1).search(/\n {2}[a-z0-9-]+:\n|\nvolumes:/)
      return compose.slice(from, from + 1 + next)
    }
    for (const node of ["citus-coordinator", "citus-worker-1", "citus-worker-2"]) {
      expect(service(node)).toContain('profiles: ["citus"]')
      expect(service(node)).toContain("image: citusdata/citus:13.2")
      expect(service(node)).toMatch(new RegExp(`- ${node}-data:/var/lib/postgresql/data`))
    }
    // As test/support/CitusCluster.ts sets up its nodes: every node's password for the others,
    // the coordinator's own address, then the workers.
    const setup = service("citus-setup")
    expect(setup).toContain("insert into pg_dist_authinfo (nodeid, rolename, authinfo) values (0, 'adintel', 'password=adintel')")
    expect(setup).toContain("select citus_set_coordinator_host('citus-coordinator', 5432)")
    expect(setup).toContain("for worker in citus-worker-1 citus-worker-2; do")
    expect(setup).toContain("select citus_add_node('$$worker', 5432)")
    const app = service("app-citus")
    expect(app).toContain("condition: service_completed_successfully")
    expect(app).toContain("<<: *app-environment")
    expect(app).toContain("DATABASE_URL: postgres://adintel:adintel@citus-coordinator:5432/adintel")
    expect(compose).toContain("environment: &app-environment")
  })
})

/**
 * What the route benchmarks record per shape, and the one table they print: p50 and p95 of the
 * wall time, p95 as a ratio to the baseline's of the same run, and, when the benchmark's
 * PostgreSQL runs on this machine, the PostgreSQL CPU time per call (issue 31: the capacity
 * model's input). Wall time on a shared 2-core machine moves with everything else running;
 * CPU time moves far less, and a query run in parallel counts every worker's share.
 */
import { readFileSync } from "node:fs"
import pg from "pg"
import { percentile, serversOf } from "./Scratch.js"

/** Clock ticks a second of `/proc/<pid>/stat` times (USER_HZ): 100 on every Linux this runs on. */
const ticksPerSecond = 100

/** Fields 14-17 of `/proc/<pid>/stat`: utime, stime, cutime, cstime, in ticks; and field 4, the parent. */
const statOf = (pid: number) => {
  const text = readFileSync(`/proc/${pid}/stat`, "utf8")
  // The command name (field 2) is in parentheses and may hold spaces: count from after it.
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ")
  const at = (field: number) => Number(fields[field - 3])
  return { parent: at(4), own: at(14) + at(15), reaped: at(16) + at(17) }
}

/**
 * The CPU milliseconds the PostgreSQL server at `url` has used so far: the postmaster's own, every
 * process it runs (backends, workers), and those it has reaped (parallel workers that ended).
 * `undefined` when that server is not a process of this machine (or `/proc` cannot say).
 */
const serverCpuMeter = async (url: string): Promise<(() => number) | undefined> => {
  const client = new pg.Client({ connectionString: url })
  try {
    await client.connect()
    const { rows } = await client.query<{ pid: number }>("select pg_backend_pid() as pid")
    const postmaster = statOf(rows[0]!.pid).parent
    const children = () =>
      readFileSync(`/proc/${postmaster}/task/${postmaster}/children`, "utf8").trim().split(/\s+/).filter((p) => p !== "").map(Number)
    children()
    // A backend that ended and is not yet reaped is in neither sum for a moment: the meter keeps
    // the most it has read, so a call's figure is never below zero (it read -46.67 ms a call once).
    let most = 0
    return () => {
      const { own, reaped } = statOf(postmaster)
      let ticks = own + reaped
      for (const pid of children()) {
        try {
          ticks += statOf(pid).own
        } catch {
          // Ended between the list and its read: the postmaster's reaped time has it, or will.
        }
      }
      most = Math.max(most, (ticks * 1000) / ticksPerSecond)
      return most
    }
  } catch {
    return undefined
  } finally {
    await client.end().catch(() => undefined)
  }
}

/** A server of the database under test, and its CPU meter. */
export interface NodeCpu {
  readonly name: string
  readonly cpu: () => number
}

/**
 * The CPU meter of each server that holds the database at `url` (`serversOf`: a Citus cluster's
 * nodes, coordinator first; else its one server). `undefined` when one is not metered here.
 */
export const nodeCpuMeters = async (url: string): Promise<ReadonlyArray<NodeCpu> | undefined> => {
  const nodes: Array<NodeCpu> = []
  for (const [name, server] of serversOf(url)) {
    const cpu = await serverCpuMeter(server)
    if (cpu === undefined) return undefined
    nodes.push({ name, cpu })
  }
  return nodes
}

/** Each node's CPU milliseconds from now: call the function returned to read them, in `nodes`' order. */
export const cpuSince = (nodes: ReadonlyArray<NodeCpu>) => {
  const before = nodes.map((node) => node.cpu())
  return () => nodes.map((node, i) => node.cpu() - before[i]!)
}

/** The CPU milliseconds every server holding the database at `url` has used so far (`nodeCpuMeters`, summed). */
export const pgCpuMeter = async (url: string): Promise<(() => number) | undefined> => {
  const nodes = await nodeCpuMeters(url)
  return nodes === undefined ? undefined : () => nodes.reduce((sum, node) => sum + node.cpu(), 0)
}

/** One timed call: wall milliseconds and, when measured, PostgreSQL CPU milliseconds. */
export interface Sample {
  readonly ms: number
  readonly pgCpuMs?: number | undefined
}

/** Samples by shape, in the order the shapes were first recorded. */
export class Figures {
  private readonly byShape = new Map<string, Array<Sample>>()

  add(shape: string, sample: Sample) {
    this.byShape.set(shape, [...(this.byShape.get(shape) ?? []), sample])
  }

  /** The wall milliseconds of a shape. */
  ms(shape: string): Array<number> {
    return (this.byShape.get(shape) ?? []).map((s) => s.ms)
  }

  /** p95 of every shape but the baseline, slowest first. */
  slowest(baseline: string): Array<readonly [string, number]> {
    return [...this.byShape.keys()].filter((name) => name !== baseline)
      .map((name) => [name, percentile(this.ms(name), 95)] as const)
      .sort((a, b) => b[1] - a[1])
  }

  /** The table: n, p50, p95, p95 / the baseline's p95, and mean PostgreSQL CPU ms a call where measured. */
  print(title: string, baseline: string) {
    const width = Math.max(32, title.length, ...[...this.byShape.keys()].map((name) => name.length))
    const base = percentile(this.ms(baseline), 95)
    const cpu = [...this.byShape.values()].every((samples) => samples.every((s) => s.pgCpuMs !== undefined))
    console.log("")
    console.log(`${title.padEnd(width)} ${"n".padStart(5)} ${"p50 ms".padStart(8)} ${"p95 ms".padStart(8)}  p95 / baseline p95` + (cpu ? "  pg CPU ms/call" : ""))
    for (const [name, samples] of this.byShape) {
      const values = samples.map((s) => s.ms)
      const p95 = percentile(values, 95)
      const ratio = `${(p95 / base).toFixed(1)}x`
      const meanCpu = samples.reduce((sum, s) => sum + (s.pgCpuMs ?? 0), 0) / samples.length
      console.log(
        `${name.padEnd(width)} ${String(values.length).padStart(5)} ${percentile(values, 50).toFixed(1).padStart(8)} ${p95.toFixed(1).padStart(8)}  ` +
          (cpu ? `${ratio.padEnd(18)}  ${meanCpu.toFixed(2).padStart(15)}` : ratio)
      )
    }
  }
}

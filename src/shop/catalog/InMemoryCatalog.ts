import { Effect, Option } from "effect"
import { addDays, type UtcDay } from "../../kernel/UtcDay.js"
import { CatalogRepo, type CatalogQuery, type CatalogRow, type MetricValues, type PageQuery, type SeriesDay } from "./CatalogRepo.js"
import { type ShopEntity, type ShopRecordId, specOf } from "./Entities.js"
import type { RecordOf } from "./Views.js"
import { decodedNumber, decodedTexts, isJsonObject } from "../../kernel/Guards.js"

/**
 * The catalog's records held in memory, for the read model's unit tests (`ShopCatalog.layerTest`):
 * the same answers as the SQL for what it covers (periods, metrics and growth, sorts, paging,
 * the filters on a record's own columns, the rollups' state, trending), deterministic, with no
 * PostgreSQL. What needs the database's relations or text search (references, category
 * subtrees, what videos show, title search, category counts) is a defect here, never a
 * silently different answer.
 */

/** A day of a record's daily series: each metric column of its daily table (absent or null: no data). */
export interface MemoryDay {
  readonly day: UtcDay
  readonly values: MetricValues
}

export interface MemoryRecord<E extends ShopEntity> {
  readonly id: ShopRecordId
  readonly region: string
  readonly record: RecordOf<E>
  /** Columns the filters and sorts read beyond the record's own fields (by name, without `e.`). */
  readonly columns?: Readonly<Record<string, unknown>>
  readonly daily?: ReadonlyArray<MemoryDay>
}

/** Each entity's records, in the order they were loaded (their row ids: the last tie-break of a sort). */
export type CatalogWorld = { readonly [E in ShopEntity]?: ReadonlyArray<MemoryRecord<E>> }

const unsupported = (what: string) => Effect.dieMessage(`the in-memory catalog does not ${what}; the PostgreSQL tests cover it`)

/** SQL's `sum`: null without a value. */
const sumOf = (values: ReadonlyArray<number>) => (values.length === 0 ? null : values.reduce((a, b) => a + b, 0))

/** Nulls last in either direction, as the SQL orders. */
const compare = (a: unknown, b: unknown, descending: boolean): number => {
  if (a === b) return 0
  if (a === null || a === undefined) return 1
  if (b === null || b === undefined) return -1
  const order = (typeof a === "number" && typeof b === "number" ? a < b : String(a) < String(b)) ? -1 : 1
  return descending ? -order : order
}

export const inMemoryCatalog = (world: CatalogWorld): CatalogRepo => {
  const recordsOf = <E extends ShopEntity>(entity: E): ReadonlyArray<MemoryRecord<E>> => world[entity] ?? []
  const rollups = new Map<string, UtcDay>()

  const daysOf = (record: MemoryRecord<ShopEntity>, from: UtcDay, to: UtcDay) =>
    [...(record.daily ?? [])].filter((d) => d.day >= from && d.day <= to).sort((a, b) => (a.day < b.day ? -1 : 1))

  /** Every metric of a record over `from`..`to`, as the SQL aggregates compute them. */
  const metricsOver = (entity: ShopEntity, record: MemoryRecord<ShopEntity>, from: UtcDay, to: UtcDay): MetricValues => {
    const days = daysOf(record, from, to)
    return Object.fromEntries(Object.entries(specOf(entity).metrics).map(([name, metric]) => {
      const values = days.map((d) => d.values[metric.column]).filter((v): v is number => typeof v === "number")
      return [name, metric.kind === "sum" ? sumOf(values) : values.length === 0 ? null : values[values.length - 1]! - values[0]!]
    }))
  }

  const columnOf = (record: MemoryRecord<ShopEntity>, column: string): unknown => {
    const name = column.replace(/^e\./, "")
    // A record's own fields, read by a column's name as the declaration writes it.
    return record.columns?.[name] ?? (isJsonObject(record.record) ? record.record[name] : undefined) ?? null
  }

  /** The records a query selects, each with its metrics over the period and the one before. */
  const matching = <E extends ShopEntity>(query: CatalogQuery<E>) =>
    Effect.gen(function*() {
      const spec = specOf(query.entity)
      const p = query.params
      const rows: Array<{ readonly position: number; readonly record: MemoryRecord<E>; readonly current: MetricValues; readonly previous: MetricValues }> = []
      for (const [position, record] of recordsOf(query.entity).entries()) {
        if (record.region !== query.region || (query.only !== undefined && record.id !== query.only)) continue
        let keep = true
        for (const [name, filter] of Object.entries(spec.filters)) {
          const c = filter.constraint
          if (c.kind === "range" || c.kind === "days") {
            const [low, high] = c.kind === "range" ? [p[`min_${name}`], p[`max_${name}`]] : [p[`${name}_from`], p[`${name}_to`]]
            const value = columnOf(record, c.column)
            const day = c.kind === "days" && typeof value === "string" ? value.slice(0, 10) : value
            if (low !== undefined && (day === null || compare(day, low, false) < 0)) keep = false
            if (high !== undefined && (day === null || compare(day, high, false) > 0)) keep = false
            continue
          }
          const wanted = p[name]
          if (wanted === undefined) continue
          const value = columnOf(record, "column" in c ? c.column : "")
          if (c.kind === "choice") keep &&= (decodedTexts(name, wanted) ?? []).includes(String(value))
          else if (c.kind === "bool") keep &&= value === wanted
          else if (c.kind === "keyword") {
            keep &&= c.columns.some((column) => String(columnOf(record, column) ?? "").toLowerCase().includes(String(wanted).toLowerCase()))
          } else return yield* unsupported(`filter by ${c.kind} (${name})`)
        }
        if (!keep) continue
        const current = metricsOver(query.entity, record, query.period.from, query.period.to)
        const bounded = Object.keys(spec.metrics).every((name) => {
          const [min, max] = [decodedNumber(`min_${name}`, p[`min_${name}`]), decodedNumber(`max_${name}`, p[`max_${name}`])]
          const value = current[name] ?? null
          return (min === undefined || (value !== null && value >= min)) && (max === undefined || (value !== null && value <= max))
        })
        if (!bounded) continue
        rows.push({ position, record, current, previous: metricsOver(query.entity, record, query.period.previousFrom, query.period.previousTo) })
      }
      return rows
    })

  const rowOf = <E extends ShopEntity>(found: { readonly record: MemoryRecord<E>; readonly current: MetricValues; readonly previous: MetricValues }): CatalogRow<E> => ({
    id: found.record.id,
    region: found.record.region,
    record: found.record.record,
    current: found.current,
    previous: found.previous
  })

  return CatalogRepo.make({
    rollupDay: (entity, days) => Effect.sync(() => Option.fromNullable(rollups.get(`${entity}/${days}`))),
    refreshRollup: (entity, days, dayTo) => Effect.sync(() => void rollups.set(`${entity}/${days}`, dayTo)),
    exists: (entity, region, id) => Effect.succeed(recordsOf(entity).some((r) => r.region === region && r.id === id)),

    series: (entity, region, id, from, to) =>
      Effect.sync(() => {
        const record = recordsOf(entity).find((r) => r.region === region && r.id === id)
        const columns = [...new Set(Object.values(specOf(entity).metrics).map((m) => m.column))]
        const days: Array<SeriesDay> = []
        for (let day = from; day <= to; day = addDays(day, 1)) {
          const found = record?.daily?.find((d) => d.day === day)
          days.push({ day, values: Object.fromEntries(columns.map((c) => [c, found?.values[c] ?? null])) })
        }
        return days
      }),

    count: (query) => Effect.map(matching(query), (rows) => rows.length),

    page: <E extends ShopEntity>(query: PageQuery<E>) =>
      Effect.map(matching(query), (found) => {
        const spec = specOf(query.entity)
        const metric = query.sort.endsWith("_growth") ? query.sort.slice(0, -"_growth".length) : undefined
        const valueOf = (row: (typeof found)[number]): unknown =>
          query.sort in spec.sorts && !(query.sort in spec.metrics)
            ? columnOf(row.record, spec.sorts[query.sort]!)
            : metric !== undefined && metric in spec.metrics
            ? (row.previous[metric] ?? 0) === 0 || row.current[metric] === null
              ? null
              : (row.current[metric]! - row.previous[metric]!) / row.previous[metric]!
            : row.current[query.sort] ?? null
        const sorted = [...found].sort((a, b) =>
          compare(valueOf(a), valueOf(b), query.descending) || compare(a.position, b.position, query.descending)
        )
        return { total: found.length, rows: sorted.slice(query.offset, query.offset + query.limit).map(rowOf) }
      }),

    trending: (query) =>
      query.categoryId !== undefined ? unsupported("filter trending by category") : Effect.sync(() => {
        const ranked = recordsOf("products").filter((r) => r.region === query.region).flatMap((record) => {
          const current = metricsOver("products", record, query.window.from, query.window.to)
          const previous = metricsOver("products", record, query.window.previousFrom, query.window.previousTo)
          const [now, before] = [current[query.metric] ?? null, previous[query.metric] ?? null]
          return now !== null && before !== null && now > 0 && before > 0
            ? [{ row: rowOf({ record, current, previous }), growth: (now - before) / before, current: now, previous: before }]
            : []
        })
        ranked.sort((a, b) => b.growth - a.growth || b.current - a.current || (a.row.id < b.row.id ? -1 : a.row.id > b.row.id ? 1 : 0))
        return { total: ranked.length, rows: ranked.slice(query.offset, query.offset + query.limit) }
      }),

    titleSearch: () => unsupported("search titles (trigrams)"),

    categories: (region) =>
      Effect.sync(() =>
        recordsOf("categories")
          .map((c, position) => ({ c, position }))
          .filter(({ c }) => c.region === region)
          .sort((a, b) => a.c.record.level - b.c.record.level || (a.c.record.name < b.c.record.name ? -1 : a.c.record.name > b.c.record.name ? 1 : 0) || a.position - b.position)
          .map(({ c }) => ({ id: c.id, name: c.record.name, level: c.record.level, parent_id: c.record.parent_id }))
      ),

    categoryCounts: () => unsupported("count what a category holds")
  })
}

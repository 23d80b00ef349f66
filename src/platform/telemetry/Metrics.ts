import { Effect, Metric, MetricBoundaries, MetricLabel, MetricState } from "effect"
import type { MetricPair } from "effect"

/**
 * The metrics operators act on (issue 30, INTERPRETATIONS R2), in one place: what they count and
 * the labels each carries. Every label value comes from a closed set (the contract's path
 * templates, status codes, fixed reasons, entity names), so the series stay bounded. `/metrics`
 * (system/Metrics.ts) renders them; gauges are sampled there, at scrape time.
 */

const seconds = MetricBoundaries.fromIterable([0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30])

/** Every metric of the service is named `adintel_*`: `/metrics` shows these and nothing else. */
export const prefix = "adintel_"

/** A counter that only goes up (Prometheus `_total`). */
const counter = (name: string, description: string) => Metric.counter(name, { description, incremental: true })
/** A gauge, set when the scrape asks. */
const gauge = (name: string, description: string) => Metric.gauge(name, { description })

export const httpRequests = counter(
  "adintel_http_requests_total",
  "Answered requests by route (the contract's path template; unmatched for none) and status"
)
export const httpDuration = Metric.histogram(
  "adintel_http_request_duration_seconds",
  seconds,
  "Time from request to answer written, by route"
)
export const creditsCharged = counter("adintel_credits_charged_total", "Credits charged by admitted keyed calls")
export const creditsRefunded = counter(
  "adintel_credits_refunded_total",
  "Credits given back: by the call itself (died, 5xx, refused in flight) or by the sweeper (dead replica, ceiling)"
)
export const admissionBatchSize = Metric.histogram(
  "adintel_admission_batch_size",
  MetricBoundaries.fromIterable([1, 2, 5, 10, 20, 50, 100]),
  "Calls admitted together in one gateway statement"
)
export const admissionWait = Metric.histogram(
  "adintel_admission_wait_seconds",
  seconds,
  "Time a keyed call waits for its admission (queue and statement)"
)
export const rateLimitRefusals = counter(
  "adintel_rate_limit_refusals_total",
  "Calls refused with a 429 by a limit: the per-minute window (per_minute), the calls in flight (in_flight) or the open streams (streams)"
)
export const dbPoolConnections = gauge(
  "adintel_db_pool_connections",
  "The primary database pool's connections, by state (in_use, idle) and clients waiting for one (waiting)"
)
export const trendBacklog = gauge("adintel_trend_backlog_ads", "Imported ads not yet counted into the trends")
export const trendCounted = counter("adintel_trend_counted_ads_total", "Ads counted into the trends by this process")
export const importedRecords = counter(
  "adintel_imported_records_total",
  "Records the NDJSON import accepted, by entity"
)
export const transcriptionQueue = gauge(
  "adintel_transcription_queue",
  "Transcript and script generations waiting for their turn"
)
export const replicaHealthy = gauge(
  "adintel_replica_healthy",
  "Whether each read replica (DATABASE_REPLICA_URLS, by position: replica-<n>) serves reads: 1 or 0 (R1)"
)
export const replicaLag = gauge(
  "adintel_replica_lag_seconds",
  "Each read replica's replay lag, in seconds, at the last check that could read it"
)

export const webhookAttempts = counter(
  "adintel_webhook_attempts_total",
  "Webhook delivery attempts made by this process, by outcome (delivered, failed)"
)
export const webhookBacklog = gauge("adintel_webhook_backlog", "Webhook deliveries due and not yet sent, at this process's last pass")

/**
 * One label set per combination of values, made once: the metric's hook is then found by
 * identity instead of hashing the labels on every update (the request path calls this).
 */
const labelSets = new WeakMap<object, Map<string, ReadonlyArray<MetricLabel.MetricLabel>>>()
const labelsOf = (metric: object, labels: Readonly<Record<string, string>>): ReadonlyArray<MetricLabel.MetricLabel> => {
  let byValues = labelSets.get(metric)
  if (byValues === undefined) labelSets.set(metric, byValues = new Map())
  const id = Object.entries(labels).map(([k, v]) => `${k}\u0000${v}`).join("\u0001")
  let set = byValues.get(id)
  if (set === undefined) byValues.set(id, set = Object.entries(labels).map(([k, v]) => MetricLabel.make(k, v)))
  return set
}

/** Adds `value` to a counter, records it in a histogram or sets a gauge, under `labels`. */
export const record = <In>(metric: Metric.Metric<any, In, any>, value: In, labels: Readonly<Record<string, string>> = {}) =>
  Effect.sync(() => metric.unsafeUpdate(value, labelsOf(metric, labels)))

/** The same, outside an effect (the request middleware's last step). */
export const unsafeRecord = <In>(metric: Metric.Metric<any, In, any>, value: In, labels: Readonly<Record<string, string>> = {}) =>
  metric.unsafeUpdate(value, labelsOf(metric, labels))

const escapeLabel = (value: string) => value.replace(/\\/g, "\\\\").replace(/"/g, "\\\"").replace(/\n/g, "\\n")
const escapeHelp = (value: string) => value.replace(/\\/g, "\\\\").replace(/\n/g, "\\n")
const number = (value: number | bigint) =>
  typeof value === "bigint" ? value.toString()
  : Number.isNaN(value) ? "NaN"
  : value === Infinity ? "+Inf"
  : value === -Infinity ? "-Inf"
  : String(value)
const labelText = (labels: ReadonlyArray<readonly [string, string]>) =>
  labels.length === 0 ? "" : `{${labels.map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(",")}}`

/**
 * The Prometheus text exposition format 0.0.4 of the service's metrics: one `# HELP` and
 * `# TYPE` per name, then its series (histograms as cumulative `_bucket`s with `le`, `_sum`
 * and `_count`), names and series in a stable order.
 */
export const prometheusText = (pairs: ReadonlyArray<MetricPair.MetricPair.Untyped>): string => {
  const byName = new Map<string, { help: string; type: string; lines: Array<readonly [string, string]> }>()
  for (const { metricKey, metricState } of pairs) {
    const name = metricKey.name
    if (!name.startsWith(prefix)) continue
    const labels = metricKey.tags.map((tag) => [tag.key, tag.value] as const).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0)
    const type = MetricState.isCounterState(metricState) ? "counter"
      : MetricState.isGaugeState(metricState) ? "gauge"
      : MetricState.isHistogramState(metricState) ? "histogram"
      : undefined
    if (type === undefined) continue
    const entry = byName.get(name) ?? { help: metricKey.description._tag === "Some" ? metricKey.description.value : name, type, lines: [] }
    byName.set(name, entry)
    const series = labelText(labels)
    if (MetricState.isCounterState(metricState)) entry.lines.push([series, `${name}${series} ${number(metricState.count)}`])
    else if (MetricState.isGaugeState(metricState)) entry.lines.push([series, `${name}${series} ${number(metricState.value)}`])
    else if (MetricState.isHistogramState(metricState)) {
      const lines = metricState.buckets.map(([bound, count]) => `${name}_bucket${labelText([...labels, ["le", number(bound)]])} ${count}`)
      // Effect's boundaries end at +Inf; the format requires that bucket, equal to the count.
      if (!metricState.buckets.some(([bound]) => bound === Infinity)) lines.push(`${name}_bucket${labelText([...labels, ["le", "+Inf"]])} ${metricState.count}`)
      lines.push(`${name}_sum${series} ${number(metricState.sum)}`, `${name}_count${series} ${metricState.count}`)
      entry.lines.push([series, lines.join("\n")])
    }
  }
  const out: Array<string> = []
  for (const name of [...byName.keys()].sort()) {
    const { help, lines, type } = byName.get(name)!
    out.push(`# HELP ${name} ${escapeHelp(help)}`, `# TYPE ${name} ${type}`)
    for (const [, line] of lines.sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0)) out.push(line)
  }
  return out.length === 0 ? "" : out.join("\n") + "\n"
}

/** The text of every metric recorded so far in this process. */
export const scrape: Effect.Effect<string> = Effect.map(Metric.snapshot, prometheusText)

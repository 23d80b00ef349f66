import { describe, expect, it } from "@effect/vitest"
import { progressText } from "../src/platform/Progress.js"

/** Long loads say how far they are (issue 29): share, count, rate and the time left, on one line. */
describe("progress lines", () => {
  it("say the share, the count, the rate and the time left, or the count and rate when the total is unknown", () => {
    expect(progressText(450_000, 1_000_000, 45_000, "records")).toBe("45% 450,000 / 1,000,000 records, 10,000/s, ETA 0:55")
    expect(progressText(1, 10_000, 1_000, "ads")).toBe("0% 1 / 10,000 ads, 1/s, ETA 2:46:39")
    expect(progressText(1_000_000, 1_000_000, 80_000, "ads")).toBe("100% 1,000,000 / 1,000,000 ads, 12,500/s, ETA 0:00")
    expect(progressText(1_234, undefined, 2_000, "rows")).toBe("1,234 rows, 617/s")
    // Nothing done yet: no rate to tell the time left from.
    expect(progressText(0, 500, 0, "rows")).toBe("0% 0 / 500 rows, 0/s")
  })
})

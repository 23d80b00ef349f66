import { effect, flakyTest, it, layer, live, prop, scoped, scopedLive } from "@effect/vitest"

/**
 * Run before every test file (vitest `setupFiles`). `@effect/vitest`'s `layer(...)` assigns its
 * layer's `effect` and `scoped` onto vitest's one `it` object, and the files of a run share their
 * worker's modules (`isolate: false`): without this, a file's `it.effect` outside any `layer`
 * would run in the previous file's layer, whose scope that file has closed.
 */
Object.assign(it, { effect, live, scoped, scopedLive, flakyTest, layer, prop })

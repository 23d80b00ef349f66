import type { BuildOptions } from "esbuild"

/** The TypeScript files under `folder` of `root`, relative to `root`. */
export declare const sourcesUnder: (root: string, folder: string) => Promise<Array<string>>
/** The thread modules of `src/`: each is an entry point of its own. */
export declare const threadsOf: (root: string) => Promise<Array<string>>
/** The esbuild options that build `entryPoints` with every thread of `src/` into `outdir` (scripts/programs.mjs). */
export declare const programsBuild: (options: {
  readonly root: string
  readonly outdir: string
  readonly entryPoints: ReadonlyArray<string>
  readonly bundled?: RegExp
}) => Promise<BuildOptions>

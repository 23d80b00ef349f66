import { Config, Effect } from "effect"

/**
 * The workspace's limits (issue 19, "Limits with clear errors"), read through `Config` with the
 * defaults the README's settings table documents. A test sets them small with `env`.
 */
export interface WorkspaceSettings {
  /** Folders one account holds. */
  readonly maxFolders: number
  /** Boards one folder holds. */
  readonly maxBoardsPerFolder: number
  /** Brands and saved ads together on one board. */
  readonly maxBoardItems: number
  /** Live (not revoked, not expired) share links of one board. */
  readonly maxShareLinksPerBoard: number
  /** Views of shared boards per client address per minute (the public page, no key). */
  readonly shareViewsPerMinute: number
}

const limit = (name: string, fallback: number, max: number) =>
  Config.integer(name).pipe(
    Config.validate({ message: `${name} must be an integer from 1 to ${max}`, validation: (n) => n >= 1 && n <= max }),
    Config.withDefault(fallback)
  )

export const workspaceSettings: Config.Config<WorkspaceSettings> = Config.all({
  maxFolders: limit("WORKSPACE_MAX_FOLDERS", 100, 10_000),
  maxBoardsPerFolder: limit("WORKSPACE_MAX_BOARDS_PER_FOLDER", 100, 10_000),
  maxBoardItems: limit("WORKSPACE_MAX_BOARD_ITEMS", 1_000, 100_000),
  maxShareLinksPerBoard: limit("WORKSPACE_MAX_SHARE_LINKS_PER_BOARD", 10, 1_000),
  shareViewsPerMinute: limit("SHARE_VIEWS_PER_MINUTE", 60, 100_000)
})

/** The settings as a service, so every workspace service reads them once, from one place. */
export class WorkspaceConfig extends Effect.Service<WorkspaceConfig>()("adintel/WorkspaceConfig", {
  effect: Effect.map(workspaceSettings, (settings): WorkspaceSettings => settings)
}) {}

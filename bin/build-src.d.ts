// Types of bin/build-src.js for the TypeScript that imports it (test/globalSetup.ts, tests).

export const SRC_DIR: string;
export const BUILD_DIR: string;

export interface BuildFolders {
  /** The sources (default: the repository's src/). */
  srcDir?: string;
  /** The build (default: the repository's build/). */
  outDir?: string;
}

export interface BuildState {
  fresh: boolean;
  /** Sources added or changed since the build (paths relative to srcDir, `/`-separated). */
  changed: string[];
  /** Sources removed since the build. */
  removed: string[];
  sources: Map<string, [size: number, mtimeMs: number]>;
}

export function buildState(folders?: BuildFolders): BuildState;
export function builtName(rel: string): string;
export function build(options?: BuildFolders & { all?: boolean }): Promise<{ compiled: number; copied: number; removed: number; ms: number }>;
export function freshBuild(options?: BuildFolders & { rebuild?: boolean }): Promise<{ url: URL | null; note: string | null }>;

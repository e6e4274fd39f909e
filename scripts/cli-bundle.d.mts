/** The repository root. */
export declare const REPO_ROOT: string;

/** Where the bundles of the repository at `root` are kept. */
export declare function bundleCacheDir(root?: string): string;

/**
 * The entry file of the current bundle, or `undefined` when there is none or any file it was built
 * from has changed since.
 */
export declare function currentBundle(root?: string): Promise<string | undefined>;

/** Bundle `packages/cli/src/bin.ts` of the repository at `root`, make it current; returns its entry file. */
export declare function buildCliBundle(root?: string): Promise<string>;

/** The current bundle's entry file, built first when there is none or it is stale. */
export declare function ensureCliBundle(root?: string): Promise<string>;

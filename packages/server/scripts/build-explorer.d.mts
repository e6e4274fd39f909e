/** Where `grag serve` looks for the explorer by default (`packages/server/dist/explorer`). */
export declare const DEFAULT_EXPLORER_DIR: string;

/** The first load of a remote script, style or module found in `text`, or undefined. */
export declare function findExternalLoad(text: string): string | undefined;

/**
 * Bundle the explorer into `outDir` (replaced): `index.html`, `assets/explorer.js`,
 * `assets/explorer.css`. Throws when an output would load anything from another origin.
 */
export declare function buildExplorer(
  outDir?: string,
): Promise<{ outDir: string; files: { name: string; bytes: number }[] }>;

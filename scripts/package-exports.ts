/** Reading a package.json's `exports`, shared by the repository's scripts. */

/** The file an `exports` condition object (or string) points at for `import`. */
export function importTarget(target: unknown): string | undefined {
  if (typeof target === 'string') return target;
  if (target && typeof target === 'object') {
    const t = target as Record<string, unknown>;
    for (const key of ['import', 'default', 'node']) {
      const found = importTarget(t[key]);
      if (found) return found;
    }
  }
  return undefined;
}

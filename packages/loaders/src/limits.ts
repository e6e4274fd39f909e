import { InvalidArgumentError, type LoaderLimits, type LoaderOptions } from '@grag/core';

const MiB = 1024 * 1024;

/** The limits every loader of this package applies when `options.limits` leaves one out. */
export const DEFAULT_LOADER_LIMITS: Readonly<Required<LoaderLimits>> = Object.freeze({
  maxBytes: 100 * MiB,
  maxPages: 2000,
  maxExpandedBytes: 200 * MiB,
  maxRecords: 1_000_000,
  timeoutMs: 60_000,
  maxMemoryBytes: 512 * MiB,
});

/** `options.limits` over the defaults; a limit that is not a positive number is an error. */
export function resolveLimits(options: LoaderOptions | undefined): Required<LoaderLimits> {
  const limits = { ...DEFAULT_LOADER_LIMITS };
  for (const [key, value] of Object.entries(options?.limits ?? {})) {
    if (value === undefined) continue;
    if (!(key in limits))
      throw new InvalidArgumentError(
        'limits',
        `@grag/loaders: unknown limit "${key}"; the limits are ${Object.keys(DEFAULT_LOADER_LIMITS).join(', ')}`,
      );
    if (typeof value !== 'number' || !(value > 0))
      throw new InvalidArgumentError(
        'limits',
        `@grag/loaders: limits.${key} must be a positive number, got ${String(value)}`,
      );
    limits[key as keyof LoaderLimits] = value;
  }
  return limits;
}

/**
 * A field worked out when first read: what a method's `load` leaves for the part of an index only
 * an update reads (its update state, the vectors it refers to), so a query process never decodes it.
 */

/**
 * Set `object[field]` to a property that reads `value()` when first read (enumerable; a value set
 * later replaces it).
 */
export function lazyField<T extends object, K extends keyof T>(object: T, field: K, value: () => T[K]): void {
  let state: { value: T[K] } | undefined;
  Object.defineProperty(object, field, {
    configurable: true,
    enumerable: true,
    get: () => {
      state ??= { value: value() };
      return state.value;
    },
    set: (v: T[K]) => {
      state = { value: v };
    },
  });
}

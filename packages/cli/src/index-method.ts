import { InvalidArgumentError } from '@grag/core';
import { findMethod, METHODS, type MethodEntry } from './registry.js';

/**
 * The method that wrote the index at `location`, by its manifest's `method` name; throws
 * `InvalidArgumentError` naming the index and the methods this grag knows when it is none of them.
 */
export function indexMethod(location: string, method: string): MethodEntry {
  const entry = findMethod(method);
  if (!entry) {
    throw new InvalidArgumentError(
      'index',
      `${location} holds a '${method}' index, which this grag does not know. Available: ${METHODS.map((m) => m.name).join(', ')}.`,
    );
  }
  return entry;
}

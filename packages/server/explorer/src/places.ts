/**
 * Where a retrieved item comes from in the source files, as the page shows it: the label of each
 * location (`report.pdf p. 3`, `guide.html § Install › Linux`, `people.csv row 12`), written as
 * core's `formatLocation` writes it (the page bundles no server code).
 */
import type { SourceLocation } from './types.js';

/** The label of one place in a source file. */
export function placeLabel(location: SourceLocation): string {
  const parts = [location.path];
  if (location.page !== undefined) parts.push(`p. ${location.page}`);
  if (location.section?.length) parts.push(`§ ${location.section.join(' › ')}`);
  if (location.row !== undefined) parts.push(`row ${location.row}`);
  if (location.record !== undefined) parts.push(`record ${location.record}`);
  return parts.join(' ');
}

/** The labels of an item's places, the first `max` of them and `+N more`; '' when none is known. */
export function placesLabel(locations: readonly SourceLocation[] | undefined, max = 3): string {
  if (!locations?.length) return '';
  const shown = locations.slice(0, max).map(placeLabel).join('; ');
  return locations.length > max ? `${shown} (+${locations.length - max} more)` : shown;
}

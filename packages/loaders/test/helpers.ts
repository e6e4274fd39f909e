import { readdirSync, readFileSync } from 'node:fs';
import type { Document, SourceLocation } from '@grag/core';
import { expect } from 'vitest';

export const utf8 = (text: string) => new TextEncoder().encode(text);

/**
 * Asserts the segment contract: every segment is a non-empty span of the text, in text order, not
 * overlapping, and names the file.
 */
export function expectWellFormed(doc: Document, path: string): void {
  const segments = doc.segments ?? [];
  expect(segments.length).toBeGreaterThan(0);
  let end = 0;
  for (const s of segments) {
    expect(s.start).toBeGreaterThanOrEqual(end);
    expect(s.end).toBeGreaterThan(s.start);
    expect(s.end).toBeLessThanOrEqual(doc.text.length);
    expect(doc.text.slice(s.start, s.end).trim()).not.toBe('');
    expect(s.location.path).toBe(path);
    end = s.end;
  }
}

/** The locations of the segments whose text contains `needle`. */
export function locationsOf(doc: Document, needle: string): SourceLocation[] {
  return (doc.segments ?? [])
    .filter((s) => doc.text.slice(s.start, s.end).includes(needle))
    .map((s) => s.location);
}

/** The text of the segment at `location`, or undefined. */
export function segmentText(doc: Document, location: SourceLocation): string | undefined {
  const s = (doc.segments ?? []).find((x) => JSON.stringify(x.location) === JSON.stringify(location));
  return s && doc.text.slice(s.start, s.end);
}

/** The process ids of `pid`'s children, from /proc (Linux; none for a process gone). */
export function childPids(pid: number): number[] {
  const pids: number[] = [];
  try {
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const children = readFileSync(`/proc/${pid}/task/${task}/children`, 'latin1').trim();
      if (children) for (const child of children.split(' ')) pids.push(Number(child));
    }
  } catch {
    // The process ended while being read.
  }
  return pids;
}

/** The resident memory of `pid` in bytes, from /proc (Linux; 0 for a process gone). */
export function resident(pid: number): number {
  try {
    const kb = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'latin1'))?.[1];
    return Number(kb ?? 0) * 1024;
  } catch {
    return 0;
  }
}

/** The resident memory of `pid` and all its descendants together, in bytes (Linux). */
export function residentTree(pid: number): number {
  return childPids(pid).reduce((sum, child) => sum + residentTree(child), resident(pid));
}

/**
 * Samples `measure` every 5 ms while `work` runs; resolves to what `work` gave (or threw) and the
 * largest sample.
 */
export async function peakWhile<T>(
  measure: () => number,
  work: () => Promise<T>,
): Promise<{ outcome: T | Error; peak: number }> {
  let peak = measure();
  const sampler = setInterval(() => {
    peak = Math.max(peak, measure());
  }, 5);
  try {
    const outcome = await work().catch((e: unknown) => (e instanceof Error ? e : new Error(String(e))));
    return { outcome, peak: Math.max(peak, measure()) };
  } finally {
    clearInterval(sampler);
  }
}

import type { ProgressEvent, ProgressReporter } from '@grag/core';

/** Writes progress to a stream: a redrawn bar per stage on a TTY, plain lines otherwise. */
export interface ProgressView {
  report: ProgressReporter;
  /** A line of its own (a warning, a stage done). */
  log(line: string): void;
  /** End the current bar. */
  done(): void;
}

function formatEta(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '--';
  const s = Math.round(ms / 1000);
  return s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s` : `${s}s`;
}

/**
 * A progress view on `stream`. On a TTY each stage gets a bar with count, rate and ETA, redrawn
 * at most every 80 ms; otherwise one line per stage at start, about every 10%, and at the end.
 */
export function createProgressView(
  stream: NodeJS.WriteStream = process.stderr,
  tty = stream.isTTY === true,
): ProgressView {
  let current: { stage: string; started: number; lastDraw: number; lastPct: number } | undefined;
  let open = false;
  const clear = () => {
    if (tty && open) stream.write('\r\x1b[2K');
    open = false;
  };
  const line = (event: ProgressEvent, elapsed: number): string => {
    const unit = event.unit ? ` ${event.unit}` : '';
    if (event.total === undefined || event.total === 0) return `${event.stage}: ${event.done}${unit}`;
    const frac = Math.min(1, event.done / event.total);
    const eta = frac > 0 ? (elapsed / frac) * (1 - frac) : Number.NaN;
    const width = 24;
    const bar = tty ? `[${'#'.repeat(Math.round(frac * width)).padEnd(width, '.')}] ` : '';
    return `${event.stage}: ${bar}${event.done}/${event.total}${unit} (${Math.round(frac * 100)}%) ETA ${formatEta(eta)}`;
  };
  return {
    report(event) {
      const now = performance.now();
      if (!current || current.stage !== event.stage) {
        if (tty) clear();
        current = { stage: event.stage, started: now, lastDraw: 0, lastPct: -1 };
      }
      const elapsed = now - current.started;
      const finished = event.total !== undefined && event.done >= event.total;
      if (tty) {
        if (finished || now - current.lastDraw >= 80) {
          stream.write(`\r\x1b[2K${line(event, elapsed)}`);
          open = true;
          current.lastDraw = now;
          if (finished) {
            stream.write('\n');
            open = false;
          }
        }
        return;
      }
      const pct = event.total ? Math.floor((event.done / event.total) * 10) : -1;
      if (event.done <= 1 || finished || pct > current.lastPct) {
        if (event.done > 1 || finished || current.lastPct < 0) stream.write(`${line(event, elapsed)}\n`);
        current.lastPct = pct;
      }
    },
    log(text) {
      clear();
      stream.write(`${text}\n`);
    },
    done() {
      clear();
      current = undefined;
    },
  };
}

/** One file of a corpus being loaded (`readCorpus`'s `onFile` events). */
export interface FileLoadEvent {
  phase: 'start' | 'end';
  path: string;
  /** From 1. */
  index: number;
  total: number;
  bytes: number;
}

/** Sizes as a person reads them: `812 B`, `4.1 KiB`, `45.2 MiB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

/**
 * Progress of reading a corpus on `view`: on a TTY the stage `read` gets a bar of files; on a TTY
 * or not, a file still loading after `slowMs` gets one line, `grag: reading <path> (file 3 of 40,
 * 45.2 MiB)…`, so a long PDF or a slow custom loader is seen at work. Fast files print nothing off a
 * TTY. The returned function takes `readCorpus`'s `onFile` events; `stop()` clears a pending line.
 */
export function createFileProgress(
  view: ProgressView,
  tty: boolean,
  options: { slowMs?: number; show?: (path: string) => string } = {},
): { onFile: (event: FileLoadEvent) => void; stop(): void } {
  const slowMs = options.slowMs ?? 2000;
  const show = options.show ?? ((path: string) => path);
  let timer: NodeJS.Timeout | undefined;
  const stop = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
  };
  return {
    onFile(event) {
      stop();
      if (event.phase === 'start') {
        timer = setTimeout(() => {
          timer = undefined;
          view.log(
            `grag: reading ${show(event.path)} (file ${event.index} of ${event.total}, ${formatBytes(event.bytes)})…`,
          );
        }, slowMs);
        timer.unref?.();
        if (tty) view.report({ stage: 'read', done: event.index - 1, total: event.total, unit: 'files' });
      } else if (tty) view.report({ stage: 'read', done: event.index, total: event.total, unit: 'files' });
    },
    stop,
  };
}

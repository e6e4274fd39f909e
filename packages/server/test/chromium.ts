/** Debian's headless Chromium for the browser tests, driven by playwright-core. */
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

/** Debian's Chromium (`apt-get install chromium`). */
export const CHROMIUM = '/usr/bin/chromium';
/** Headless Chromium as CI runs it, with `extraArgs` after the usual flags. */
export function launchChromium(extraArgs: readonly string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', ...extraArgs],
  });
}

/** Whether the explorer test can run here; in CI a missing Chromium is a failure, not a skip. */
export function chromiumState(): 'present' | 'skip' | 'fail' {
  if (existsSync(CHROMIUM)) return 'present';
  return process.env.CI ? 'fail' : 'skip';
}

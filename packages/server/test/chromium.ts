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

/**
 * {@link chromiumState} for the browser tests named `label` (e.g. `'chat.e2e'`), saying on the
 * console when they are skipped. Pass the result to `describe.skipIf(state === 'skip')`, and to
 * {@link requireChromium} first in their `beforeAll`.
 */
export function chromiumFor(label: string): 'present' | 'skip' | 'fail' {
  const state = chromiumState();
  if (state === 'skip') {
    console.warn(
      `${label}: skipped, ${CHROMIUM} is missing (apt-get install -y chromium); in CI this fails.`,
    );
  }
  return state;
}

/** Throw when Chromium is missing in CI (`state` `'fail'`): there the browser tests must not pass by skipping. */
export function requireChromium(state: 'present' | 'skip' | 'fail'): void {
  if (state === 'fail')
    throw new Error(`${CHROMIUM} is missing; CI must install it (apt-get install -y chromium).`);
}

import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Where browser tests write their screenshots (on failure). */
export const BROWSER_OUTPUT_DIR = path.resolve(__dirname, '..', '..', 'test-results', 'browser');

export interface TestBrowser {
  browser: Browser;
  close(): Promise<void>;
}

/**
 * Debian's chromium (scripts/lib.sh ensure_browser installs it), headless, without its background
 * traffic; never a downloaded browser. playwright-core gives each launch a fresh temporary profile
 * (its own --user-data-dir, deleted on close), and each context is a fresh incognito-like session.
 */
export async function launchBrowser(): Promise<TestBrowser> {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
  return {
    browser,
    close: () => browser.close(),
  };
}

/** Runs one step of a journey; when it fails, the page as it was is saved as `<name>.png`. */
export async function step<T>(page: Page, name: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    await mkdir(BROWSER_OUTPUT_DIR, { recursive: true });
    const file = path.join(BROWSER_OUTPUT_DIR, `${name.replace(/[^a-z0-9-]+/gi, '-')}.png`);
    await page.screenshot({ path: file, fullPage: true }).catch(() => undefined);
    throw new Error(
      `step "${name}" failed (screenshot: ${file}): ${error instanceof Error ? error.message : String(error)}`,
      {
        cause: error,
      },
    );
  }
}

/** axe-core's serious and critical violations of the page as it is now (WCAG 2.1 A and AA). */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  // Checked once the page is idle: a button caught mid-request (Mantine dims it while loading) is not
  // what a user reads.
  await page.waitForLoadState('networkidle');
  const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  return result.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) =>
        `${violation.id}: ${violation.help} (${violation.nodes.map((node) => node.target.join(' ')).join(', ')})`,
    );
}

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';

/**
 * Real headless Chromium (Debian's package; Playwright cannot download browsers here), driven by
 * playwright-core. Each browser gets a fresh profile. Background networking is off: this machine
 * has no internet, and Chromium's own calls home would only be refused.
 */
export const CHROMIUM = '/usr/bin/chromium';

const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface TestBrowser {
  context: BrowserContext;
  /** A new tab that fails the test on any page error, failed dialog-free check or console error. */
  page(): Promise<Page>;
  /** JavaScript dialogs (alert, confirm, prompt) any page opened: an XSS would show here. */
  dialogs: string[];
  /** Uncaught exceptions in any page. */
  pageErrors: string[];
  /** What any page's Content-Security-Policy blocked, as Chromium reports it on the console. */
  cspViolations: string[];
  close(): Promise<void>;
}

export async function launchBrowser(options: { javaScript?: boolean } = {}): Promise<TestBrowser> {
  const profile = mkdtempSync(join(tmpdir(), 'skillpress-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport: { width: 1280, height: 900 },
    javaScriptEnabled: options.javaScript ?? true,
    locale: 'en-US',
    timezoneId: 'UTC',
  });
  const dialogs: string[] = [];
  const pageErrors: string[] = [];
  const cspViolations: string[] = [];
  return {
    context,
    dialogs,
    pageErrors,
    cspViolations,
    page: async () => {
      const page = await context.newPage();
      page.on('dialog', (dialog) => {
        dialogs.push(`${dialog.type()}: ${dialog.message()}`);
        void dialog.dismiss();
      });
      page.on('pageerror', (error) => pageErrors.push(error.message));
      page.on('console', (message) => {
        if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
      });
      return page;
    },
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

// Debian's chromium, driven by playwright-core (no browser download), headless, on this machine only.
import { chromium } from 'playwright-core';
import fs from 'node:fs';

export const chromiumPath = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => fs.existsSync(p));

export async function launch() {
  if (!chromiumPath) throw new Error('Debian chromium is not installed (scripts/setup.sh installs it)');
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
}

// Collects console errors and uncaught page errors: a test asserts there are none.
export function watchErrors(page) {
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(e.message));
  return errors;
}

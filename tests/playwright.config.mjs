// End-to-end tests of the built site (dist/), run by `cargo xtask test`, which serves dist/ and
// passes its address in FAIRGROUND_URL. The browser is Debian's Chromium: Playwright downloads none.
import { defineConfig } from '@playwright/test';

export default defineConfig({
  testDir: './e2e',
  outputDir: './output/results',
  // Hang guards, not speed limits: `cargo xtask test` runs these beside the workspace's builds
  // and tests, so a step that takes a second on a quiet machine can take several.
  timeout: 60_000,
  expect: { timeout: 10_000 },
  retries: 0,
  // One browser per core (the project's machine has two): each spec opens its own page.
  workers: 2,
  reporter: [['list']],
  use: {
    baseURL: process.env.FAIRGROUND_URL ?? 'http://127.0.0.1:8080/',
    browserName: 'chromium',
    // The page registers a service worker once its first chart has painted (offline after one
    // visit). It is blocked here so every spec sees a first visit's requests; offline.spec.mjs
    // allows it.
    serviceWorkers: 'block',
    launchOptions: {
      executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
});

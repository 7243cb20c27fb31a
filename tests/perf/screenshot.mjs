// The README's picture of the playground, taken for `cargo xtask screenshot` (which serves dist/,
// runs node tests/perf/screenshot.mjs URL OUT.png, then reduces the picture to 256 colours to
// keep it under 100 KB): 1280 x 800, light scheme, the default scenario once its allocation chart
// and badges are drawn.
import { chromium } from '@playwright/test';

const [url, out] = process.argv.slice(2);
if (!url || !out) {
  console.error('usage: node tests/perf/screenshot.mjs URL OUT.png');
  process.exit(2);
}
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
});
const context = await browser.newContext({
  viewport: { width: 1280, height: 800 },
  colorScheme: 'light',
  deviceScaleFactor: 1,
});
const page = await context.newPage();
await page.goto(url);
await page.getByTestId('allocation-chart').locator('g.bar').first().waitFor();
// Let the SP probe's second pass and the badges settle.
await page.waitForTimeout(1500);
await page.screenshot({ path: out, type: 'png' });
await browser.close();
console.log(`wrote ${out}`);

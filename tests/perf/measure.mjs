// Measures the playground for BENCHMARKS.md (not a test: nothing here asserts a duration).
// Serve dist/ (e.g. `cargo xtask serve`), then: node tests/perf/measure.mjs http://127.0.0.1:8080/
import { chromium } from '@playwright/test';

const url = process.argv[2] ?? 'http://127.0.0.1:8080/';
const runs = 15;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
});

// First chart, timed in the page: a MutationObserver notes when the chart's first bar is in the
// DOM, and the next animation frame (the one that paints it) is the figure reported. Reading
// performance.now() after Playwright's waitFor instead adds Playwright's own polling and round
// trip, about 150 ms here (BENCHMARKS.md, session 17), so that is printed beside it only as a
// check.
const firstChart = [];
const inDom = [];
const viaPlaywright = [];
for (let i = 0; i < runs; i++) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.addInitScript(() => {
    new MutationObserver((_, obs) => {
      if (document.querySelector('[data-testid=allocation-chart] g.bar')) {
        obs.disconnect();
        window.__chartInDom = performance.now();
        requestAnimationFrame(() => { window.__chartFrame = performance.now(); });
      }
    }).observe(document, { subtree: true, childList: true });
  });
  await page.goto(url);
  await page.getByTestId('allocation-chart').waitFor();
  await page.waitForFunction(() => window.__chartFrame !== undefined);
  const [dom, frame, now] = await page.evaluate(() => [window.__chartInDom, window.__chartFrame, performance.now()]);
  inDom.push(dom);
  firstChart.push(frame);
  viaPlaywright.push(now);
  await context.close();
}

// Edit -> new chart: time from the input event to the efficiency figure changing, measured in
// the page. It includes the debounce (printed separately) and the worker round trip.
const context = await browser.newContext();
const page = await context.newPage();
await page.goto(url);
await page.getByTestId('allocation-chart').waitFor();
await page.waitForTimeout(1500); // let the SP probe of the first solve finish
const edits = [];
for (let i = 0; i < runs; i++) {
  edits.push(await page.evaluate(async (value) => {
    const input = document.querySelector('[data-path="tenants[2].throughput[2]"]');
    const shown = document.querySelector('[data-testid=efficiency]');
    const before = shown.textContent;
    const done = new Promise((resolve) => {
      new MutationObserver((_, obs) => {
        if (shown.textContent !== before) { obs.disconnect(); resolve(performance.now()); }
      }).observe(shown, { characterData: true, childList: true, subtree: true });
    });
    const t0 = performance.now();
    input.value = String(value);
    input.dispatchEvent(new InputEvent('input', { bubbles: true }));
    return (await done) - t0;
  }, 7 + i));
  await page.waitForTimeout(1500);
}
console.log(`time to first chart (navigation start -> the frame that paints it): median ${median(firstChart).toFixed(0)} ms over ${runs} cold loads (chart in the DOM: ${median(inDom).toFixed(0)} ms; read after Playwright's waitFor: ${median(viaPlaywright).toFixed(0)} ms)`);
console.log(`edit -> redrawn chart, default preset: median ${median(edits).toFixed(1)} ms, min ${Math.min(...edits).toFixed(1)} ms over ${runs} edits`);
await browser.close();

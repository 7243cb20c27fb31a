// A page fixture that fails the test on any console error, uncaught exception or Rust panic.
import { test as base, expect } from '@playwright/test';

export const test = base.extend({
  page: async ({ page }, use) => {
    const problems = [];
    page.on('console', (msg) => {
      if (msg.type() === 'error') problems.push(`console error: ${msg.text()}`);
    });
    page.on('pageerror', (err) => problems.push(`uncaught: ${err.message}`));
    page.on('response', (res) => {
      if (res.status() >= 400) problems.push(`HTTP ${res.status()} for ${res.url()}`);
    });
    await use(page);
    expect(problems, 'the page logged errors').toEqual([]);
  },
});

export { expect };

// The page has its chart and no solve or probe is running.
export const settled = async (page) => {
  await expect(page.getByTestId('allocation-chart')).toBeVisible();
  await expect(page.getByTestId('solving')).toHaveText('');
};

// Opens the playground on its default scenario, with no saved work.
export const openFresh = async (page) => {
  await page.goto('./');
  await page.evaluate(() => localStorage.clear());
  await page.goto('./');
  await settled(page);
};

// Imports the engine module (dist/fairground.js, what documentation pages use) into the open
// page as `window.fairground`, initialised, with its full engine loaded too (so `solve` takes
// every policy, the market mechanisms included; module.spec.mjs tests the light engine alone).
export const loadEngine = async (page) => {
  await page.evaluate(async () => {
    const engine = await import('./fairground.js');
    await engine.default();
    await engine.loadFullEngine();
    window.fairground = engine;
  });
};

// Checks (or unchecks) a policy in the Simulation tab, opening its family first (families are
// collapsed to one line each).
export const choosePolicy = async (page, name, on = true) => {
  const box = page.getByTestId(`sim-policy-${name}`);
  const family = page.locator('.sim-family details', { has: box });
  if (!(await family.evaluate((d) => d.open))) await family.locator('summary').click();
  await (on ? box.check() : box.uncheck());
};

// Every chart text in the page's visible SVGs (`inView`: only charts on screen now) as rendered:
// its size (its font size times its SVG's scale), its chart and words, and whether it sticks out
// of its chart sideways or at the top or bottom.
export const chartTexts = (page, inView = false) => page.evaluate((inView) => {
  const found = [];
  for (const svg of document.querySelectorAll('main svg[viewBox]')) {
    const box = svg.getBoundingClientRect();
    if (!svg.checkVisibility() || box.width === 0 || box.height === 0) continue;
    if (inView && (box.bottom <= 0 || box.top >= innerHeight)) continue;
    const [, , width, height] = svg.getAttribute('viewBox').split(/[\s,]+/).map(Number);
    const scale = Math.min(box.width / width, box.height / height);
    for (const text of svg.querySelectorAll('text')) {
      const r = text.getBoundingClientRect();
      if (r.width === 0) continue;
      found.push({
        size: parseFloat(getComputedStyle(text).fontSize) * scale,
        name: `${svg.dataset.testid}: "${text.textContent.trim().slice(0, 30)}"`,
        cutSideways: r.left < box.left - 1 || r.right > box.right + 1,
        cutAcross: r.top < box.top - 1 || r.bottom > box.bottom + 1,
      });
    }
  }
  return found;
}, inView);

// A layout that fits a phone (issue 47): at 390 x 844 no view scrolls the page sideways; wide
// parts (the grid, tables) scroll inside themselves, and the results come before the editor.
import { test, expect, settled, openFresh, chartTexts } from './fixtures.mjs';

test.use({ viewport: { width: 390, height: 844 } });

// How far the page scrolls sideways (0 when it fits).
const sideways = (page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

test('every view fits 390 px without scrolling sideways', async ({ page }) => {
  await openFresh(page);
  expect(await sideways(page)).toBe(0);
  // The corner's buttons do not cover the title.
  const box = async (l) => l.boundingBox();
  const [title, corner] = [await box(page.locator('h1')), await box(page.locator('.corner'))];
  expect(corner.y + corner.height <= title.y || corner.x >= title.x + title.width).toBe(true);
  // Results first on a narrow screen: the chart is above the editor.
  const y = (id) => page.getByTestId(id).evaluate((e) => e.getBoundingClientRect().top + window.scrollY);
  expect(await y('allocation-chart')).toBeLessThan(await page.locator('.editor').evaluate((e) => e.getBoundingClientRect().top + window.scrollY));
  // A failed badge opened: its witness table scrolls inside itself.
  await page.getByTestId('badge-PE').locator('summary').click();
  expect(await sideways(page)).toBe(0);
  await page.getByTestId('mode-compare').click();
  await expect(page.getByTestId('compare-table')).toBeVisible({ timeout: 20_000 });
  expect(await sideways(page)).toBe(0);
  await page.getByTestId('mode-frontier').click();
  await expect(page.getByTestId('frontier-chart')).toBeVisible({ timeout: 30_000 });
  expect(await sideways(page)).toBe(0);
  await page.getByTestId('tour-start').click();
  await expect(page.getByTestId('tour-title')).toContainText('Step 1 of 7');
  await settled(page);
  expect(await sideways(page)).toBe(0);
  await page.getByTestId('tab-simulation').click();
  await page.getByTestId('sim-run').click();
  await expect(page.getByTestId('sim-table').locator('tbody tr')).toHaveCount(3, { timeout: 30_000 });
  expect(await sideways(page)).toBe(0);
});

test('the grid scrolls inside itself, its name column staying in view', async ({ page }) => {
  await openFresh(page);
  const grid = page.locator('.grid-scroll').first();
  expect(await grid.evaluate((e) => e.scrollWidth > e.clientWidth)).toBe(true);
  const name = page.getByLabel('name of tenant 1', { exact: true });
  const left = await name.evaluate((e) => e.getBoundingClientRect().left);
  await grid.evaluate((e) => { e.scrollLeft = e.scrollWidth; });
  expect(await name.evaluate((e) => e.getBoundingClientRect().left)).toBe(left);
});

// Each chart text on screen whose size as rendered (its font size times its SVG's scale) is
// under `least` px, or that sticks out of its chart (issue 64: a 720-unit chart shrunk to a
// phone drew its text at 5.8 px).
const smallChartText = async (page, least) => (await chartTexts(page)).flatMap((t) => [
  ...(t.size < least ? [`${t.size.toFixed(1)} px in ${t.name}`] : []),
  ...(t.cutSideways ? [`cut at the edge: ${t.name}`] : []),
]);

test('chart text is at least 11 px as rendered on a 390-px phone, in every view', async ({ page }) => {
  await openFresh(page);
  const charts = page.locator('main svg[viewBox]');
  expect(await charts.count()).toBeGreaterThanOrEqual(3);
  expect(await smallChartText(page, 11)).toEqual([]);
  await page.getByTestId('mode-compare').click();
  await expect(page.getByTestId('compare-si')).toBeVisible({ timeout: 20_000 });
  expect(await smallChartText(page, 11)).toEqual([]);
  await page.getByTestId('mode-frontier').click();
  await expect(page.getByTestId('frontier-chart')).toBeVisible({ timeout: 30_000 });
  expect(await smallChartText(page, 11)).toEqual([]);
  await page.getByTestId('tab-simulation').click();
  await page.getByTestId('sim-run').click();
  await expect(page.getByTestId('sim-table').locator('tbody tr')).toHaveCount(3, { timeout: 30_000 });
  await expect(page.getByTestId('jct-cdf')).toBeVisible();
  expect(await smallChartText(page, 11)).toEqual([]);
});

// Every control on screen smaller than 32 x 32 CSS px. Exempt, as WCAG 2.5.8 exempts them: a
// link inside a sentence, and the file input that its visible button stands for.
const smallControls = (page) => page.evaluate(() => {
  const found = [];
  for (const el of document.querySelectorAll('button, select, input, summary, a[href], [role=button]')) {
    if (!el.checkVisibility()) continue;
    let r = el.getBoundingClientRect();
    if (r.width <= 1 && r.height <= 1) continue; // visually hidden: reached through its label
    const inSentence = el.tagName === 'A' && [...el.parentElement.childNodes].some((n) => n.nodeType === Node.TEXT_NODE && n.textContent.trim());
    if (inSentence) continue;
    // A checkbox is chosen through its label, which is the target.
    if (el.type === 'checkbox' || el.type === 'radio') r = (el.closest('label') ?? el).getBoundingClientRect();
    if (r.width < 32 || r.height < 32) {
      found.push(`${el.dataset.testid ?? el.getAttribute('aria-label') ?? el.textContent.trim().slice(0, 20)}: ${Math.round(r.width)} x ${Math.round(r.height)}`);
    }
  }
  return found;
});

test('every control is at least 32 x 32 CSS px on a phone', async ({ page }) => {
  await openFresh(page);
  // The editor's row arrows were 27 x 21, its cells 26 high, the badges 19.
  expect(await page.getByLabel('move A3C up', { exact: true }).count()).toBe(1);
  expect(await smallControls(page)).toEqual([]);
  await page.getByTestId('badge-PE').locator('summary').click();
  await page.getByTestId('mode-compare').click();
  await expect(page.getByTestId('compare-table')).toBeVisible({ timeout: 20_000 });
  expect(await smallControls(page)).toEqual([]);
  await page.getByTestId('tour-start').click();
  await expect(page.getByTestId('tour-title')).toContainText('Step 1 of 7');
  expect(await smallControls(page)).toEqual([]);
  await page.getByTestId('tab-simulation').click();
  await page.locator('.sim-family details summary').first().click();
  expect(await smallControls(page)).toEqual([]);
});

test('names and throughputs come first and fit the phone for three GPU types', async ({ page }) => {
  // Issue 78: the grid was 676 px wide in a 366-px box with name, weight and max GPUs first;
  // the throughputs, which matter most, needed sideways scrolling.
  await openFresh(page);
  const rows = await page.getByTestId('tenants-table').evaluate((table) => [...table.querySelectorAll('tbody tr')].map((tr) => {
    const box = (sel) => tr.querySelector(sel).getBoundingClientRect();
    const tps = [...tr.querySelectorAll('input[data-path*=".throughput["]')].map((i) => i.getBoundingClientRect());
    return { name: box('input[data-path$=".name"]'), tps, weight: box('input[data-path$=".weight"]') };
  }));
  expect(rows.length).toBe(6);
  for (const { name, tps, weight } of rows) {
    expect(tps.length).toBe(3);
    for (const r of [name, ...tps]) {
      expect(r.left).toBeGreaterThanOrEqual(0);
      expect(r.right).toBeLessThanOrEqual(390);
    }
    // The other columns after them.
    expect(weight.left).toBeGreaterThanOrEqual(Math.max(...tps.map((r) => r.right)) - 1);
  }
});

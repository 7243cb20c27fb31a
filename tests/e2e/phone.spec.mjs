// A layout that fits a phone (issue 47): at 390 x 844 no view scrolls the page sideways; wide
// parts (the grid, tables) scroll inside themselves, and the results come before the editor.
import { test, expect, settled, openFresh } from './fixtures.mjs';

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

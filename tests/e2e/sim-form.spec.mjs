// The Simulation tab's form by family, its recipes (undoable, saying what they change) and its
// readable results (issue 47): one colour per policy family with dashes apart, legends that
// never overlap, a Gantt chart per chosen policy with a legend and tooltips, a message past its
// size.
import { test, expect } from './fixtures.mjs';

test.use({ viewport: { width: 1440, height: 900 } });

test.beforeEach(async ({ page }) => {
  await page.goto('./');
  await expect(page.getByTestId('allocation-chart')).toBeVisible();
  await page.getByTestId('tab-simulation').click();
  await expect(page.getByTestId('simulate-tab')).toBeVisible();
});

test('a recipe says what it changed and Undo puts the form back', async ({ page }) => {
  await page.getByTestId('sim-jobs').fill('25');
  await page.getByTestId('sim-recipe-hadar').click();
  const said = page.getByTestId('sim-recipe-changes');
  await expect(said).toContainText("Hadar's set-up changed");
  await expect(said).toContainText('jobs: 25 → 300');
  await expect(said).toContainText('policies: gavel-las, gavel-min-makespan, hadar, hadar:strict, hadare');
  await expect(page.getByTestId('sim-policy-hadare')).toBeChecked();
  await expect(page.getByTestId('sim-policy-fifo')).not.toBeChecked();
  await page.getByTestId('sim-undo').click();
  await expect(page.getByTestId('sim-jobs')).toHaveValue('25');
  await expect(page.getByTestId('sim-policy-fifo')).toBeChecked();
  await expect(page.getByTestId('sim-policy-hadare')).not.toBeChecked();
  // Ctrl+Z in the form undoes too: the typed jobs go back to the default.
  await page.getByTestId('sim-jobs').focus();
  await page.keyboard.press('Control+z');
  await expect(page.getByTestId('sim-jobs')).toHaveValue('40');
  // Every policy sits in one family, with a line saying what it does.
  await expect(page.locator('.sim-family')).toHaveCount(7);
  await expect(page.locator('.sim-policy', { has: page.getByTestId('sim-policy-oef-coop') })).toContainText('OEF cooperative');
});

// For every chart matched: whether any two of its legend entries or labels overlap, and the
// smallest rendered text size (px).
const readCharts = (page, selector) => page.$$eval(selector, (svgs) => svgs.map((svg) => {
  const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
  const boxes = [...svg.querySelectorAll('.legend-item text, .point-label text')].map((t) => t.getBoundingClientRect());
  const overlaps = [];
  boxes.forEach((a, i) => boxes.slice(i + 1).forEach((b, j) => {
    if (a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5) overlaps.push([i, i + 1 + j]);
  }));
  const sizes = [...svg.querySelectorAll('text')].map((t) => parseFloat(getComputedStyle(t).fontSize) * scale);
  const lines = [...svg.querySelectorAll('polyline.series')].map((l) => `${l.getAttribute('stroke')} ${l.getAttribute('stroke-dasharray') ?? ''}`);
  return { testid: svg.dataset.testid, entries: boxes.length, overlaps, smallest: Math.min(...sizes), lines };
}));

test("Hadar's recipe: lines told apart, legends clear, a Gantt chart per policy with tooltips", async ({ page }) => {
  await page.getByTestId('sim-recipe-hadar').click();
  await page.getByTestId('sim-jobs').fill('30');
  await page.getByTestId('sim-run').click();
  await expect(page.locator('[data-testid=sim-table] tbody tr')).toHaveCount(5, { timeout: 60_000 });
  const charts = await readCharts(page, '.sim-results svg');
  expect(charts.map((c) => c.testid)).toEqual(['jct-cdf', 'utilisation', 'cpu-memory', 'gantt']);
  for (const c of charts) {
    expect(c.entries, c.testid).toBeGreaterThan(0);
    expect(c.overlaps, `${c.testid}: overlapping legend entries`).toEqual([]);
    expect(c.smallest, `${c.testid}: smallest text (px)`).toBeGreaterThanOrEqual(12);
  }
  // Five policies, five different strokes (colour and dash): none hides another.
  const cdf = charts.find((c) => c.testid === 'jct-cdf');
  expect(new Set(cdf.lines).size).toBe(5);
  // The Gantt chart shows the chosen policy; a bar's tooltip names model, tenant, GPUs, speed.
  const pick = page.getByTestId('gantt-policy');
  await expect(pick.locator('option')).toHaveCount(5);
  await pick.selectOption('hadare');
  await expect(page.locator('figure', { has: page.getByTestId('gantt') }).locator('figcaption')).toContainText('GPUs over time under hadare');
  const tip = await page.locator('[data-testid=gantt] rect.gantt-bar title').first().textContent();
  expect(tip).toMatch(/^job \d+ \(.+, tenant .+, \d GPUs?, [\d.]+ steps\/s on (v100|p100|k80)\)/);
});

test('past its size the Gantt chart says why it is missing', async ({ page }) => {
  await page.getByTestId('sim-jobs').fill('80');
  await page.getByTestId('sim-rate').fill('40');
  await page.getByTestId('sim-run').click();
  await expect(page.locator('[data-testid=sim-table] tbody tr')).toHaveCount(3, { timeout: 60_000 });
  await expect(page.getByTestId('gantt-none')).toContainText('drawn for runs of up to 60 jobs, and this one has 80');
});

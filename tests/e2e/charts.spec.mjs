// Readable charts (issue 47): on Compare all and the price of fairness, every point is named by a
// label (points at one spot share one naming them all), no two labels overlap, labels stay
// inside the chart, text is at least 12 px, and a click on a point opens its policy.
import { test, expect, openFresh } from './fixtures.mjs';

test.use({ viewport: { width: 1440, height: 900 } });

// For every chart matched: the policies of its points, the names its labels show, whether any
// two labels' boxes overlap or one leaves the chart, and the smallest rendered text size (px).
const readCharts = (page, selector) => page.$$eval(selector, (svgs) => svgs.map((svg) => {
  const box = svg.getBoundingClientRect();
  const scale = box.width / svg.viewBox.baseVal.width;
  const labels = [...svg.querySelectorAll('.point-label text')].map((t) => t.getBoundingClientRect());
  const overlaps = [];
  labels.forEach((a, i) => labels.slice(i + 1).forEach((b, j) => {
    if (a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5) {
      overlaps.push([i, i + 1 + j]);
    }
  }));
  const outside = labels.filter((r) => r.left < box.left - 0.5 || r.right > box.right + 0.5
    || r.top < box.top - 0.5 || r.bottom > box.bottom + 0.5).length;
  const sizes = [...svg.querySelectorAll('text')].map((t) => parseFloat(getComputedStyle(t).fontSize) * scale);
  return {
    testid: svg.dataset.testid,
    points: [...svg.querySelectorAll('circle.point')].map((c) => c.dataset.policy),
    named: [...svg.querySelectorAll('.point-label tspan[data-policy]')].map((t) => t.dataset.policy),
    overlaps,
    outside,
    smallest: Math.min(...sizes),
  };
}));

const checkLabels = (charts, minimumCharts) => {
  expect(charts.length).toBeGreaterThanOrEqual(minimumCharts);
  for (const c of charts) {
    expect(c.points.length, c.testid).toBeGreaterThan(0);
    expect([...c.named].sort(), `${c.testid}: every point named once`).toEqual([...c.points].sort());
    expect(c.overlaps, `${c.testid}: overlapping labels`).toEqual([]);
    expect(c.outside, `${c.testid}: labels outside the chart`).toBe(0);
    expect(c.smallest, `${c.testid}: smallest text (px)`).toBeGreaterThanOrEqual(12);
  }
};

for (const preset of [null, 'gavel-measured', 'textbook-2x2', 'large-random']) {
  test(`Compare all labels every point without overlaps${preset ? ` (${preset})` : ''}`, async ({ page }) => {
    await openFresh(page);
    if (preset) await page.getByTestId('preset-select').selectOption(preset);
    await page.getByTestId('mode-compare').click();
    await expect(page.getByTestId('compare-table')).toBeVisible({ timeout: 30_000 });
    await expect(page.getByTestId('solving')).toHaveText('', { timeout: 30_000 });
    checkLabels(await readCharts(page, 'svg[data-testid^="compare-"]'), 2);
  });
}

test('the price of fairness labels every policy without overlaps', async ({ page }) => {
  await openFresh(page);
  await page.getByTestId('mode-frontier').click();
  await expect(page.getByTestId('frontier-chart')).toBeVisible({ timeout: 30_000 });
  checkLabels(await readCharts(page, 'svg[data-testid="frontier-chart"]'), 1);
});

test('a click on a point or a name opens that policy', async ({ page }) => {
  await openFresh(page);
  await page.getByTestId('mode-compare').click();
  await expect(page.getByTestId('compare-table')).toBeVisible({ timeout: 30_000 });
  await page.locator('svg[data-testid="compare-si"] .point-label tspan[data-policy="gavel-max-sum"]').click();
  await expect(page.getByTestId('mode-single')).toHaveAttribute('aria-pressed', 'true');
  await expect(page.getByTestId('allocation-chart')).toBeVisible();
  await expect(page.getByTestId('policy-select')).toHaveValue('gavel-max-sum');
});

// Nash welfare's prices, partial allocation's fractions and the price-of-fairness view, on the
// two-tenant scenario solved by hand in crates/fairground-core/tests/market.rs and frontier.rs.
import { test, expect, settled, openFresh, loadEngine } from './fixtures.mjs';

const scenario = {
  gpu_types: [{ name: 'slow', count: 1 }, { name: 'fast', count: 1 }],
  tenants: [
    { name: 'A', throughput: [1, 3] },
    { name: '<b>B</b>', throughput: [1, 2] },
  ],
};

test.beforeEach(async ({ page }) => {
  await openFresh(page);
  await page.getByTestId('import').setInputFiles({
    name: 'market.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(scenario)),
  });
  await settled(page);
});

test('nash-welfare shows the equilibrium prices, partial-allocation the kept fractions', async ({ page }) => {
  await page.getByTestId('policy-select').selectOption('nash-welfare');
  await settled(page);
  // p = (2/3, 4/3): B spends on both types, so 1 / p_slow = 2 / p_fast, and budgets sum to 2.
  const prices = page.locator('[data-testid=market-prices] tbody tr');
  await expect(prices).toHaveCount(2);
  await expect(prices.nth(0)).toContainText('0.6667');
  await expect(prices.nth(1)).toContainText('1.3333');
  await page.getByTestId('policy-select').selectOption('partial-allocation');
  await settled(page);
  // f_A = 1.5 / 3, f_B = 2.25 / 4; left: slow 1 - 0.5625, fast 1 - 0.375 - 0.140625.
  const tenants = page.locator('[data-testid=market-tenants] tbody tr');
  await expect(tenants.nth(0)).toContainText('0.5000');
  await expect(tenants.nth(1)).toContainText('0.5625');
  // The tenant's name is shown as text, never markup.
  await expect(tenants.nth(1).locator('td').first()).toHaveText('<b>B</b>');
  await expect(prices.nth(0)).toContainText('0.4375');
  await expect(prices.nth(1)).toContainText('0.4844');
  // The mechanism is strategy-proof: the probe (automatic at 2 tenants) finds no lie.
  await expect(page.getByTestId('badge-SP')).toContainText(/no profitable lie/i);
});

test('gandiva-fair lists its trade', async ({ page }) => {
  await page.getByTestId('policy-select').selectOption('gandiva-fair');
  await settled(page);
  // From (0.5, 0.5) each: B (r = 2) sells A (r = 3) fast GPUs at B's own rate 2 until A's slow
  // half is spent: 0.25 fast for 0.5 slow (crates/fairground-core/tests/gandiva_fair.rs works
  // such cases by hand).
  const rows = page.locator('[data-testid=trades] tbody tr');
  await expect(rows).toHaveCount(1);
  const cells = rows.first().locator('td');
  await expect(cells.nth(0)).toHaveText('<b>B</b>');
  await expect(cells.nth(1)).toHaveText('A');
  await expect(cells.nth(2)).toHaveText('0.2500 fast');
  await expect(cells.nth(3)).toHaveText('0.5000 slow');
  await expect(cells.nth(4)).toHaveText('2.0000');
  // Nobody ends below its equal share; two types, both usable by both: Pareto-efficient. B
  // would be paid more by overstating its fast speedup: the probe (automatic at 2 tenants)
  // finds that lie.
  await expect(page.getByTestId('badge-SI')).toContainText('✓ SI');
  await expect(page.getByTestId('badge-PE')).toContainText('✓ PE');
  await expect(page.getByTestId('badge-SP')).toContainText('✗ SP');
});

test('the price-of-fairness view draws three curves and places every policy', async ({ page }) => {
  await page.getByTestId('mode-frontier').click();
  const chart = page.getByTestId('frontier-chart');
  await expect(chart).toBeVisible();
  await expect(chart.locator('polyline.series')).toHaveCount(3);
  await expect(chart.locator('circle.point')).toHaveCount(17);
  // Max efficiency 4 (the fast GPU to A), oef-coop's 3.75 with both exact: 6.25%.
  await expect(page.getByTestId('price-of-fairness')).toContainText('SI + EF: costs 6.25% of the maximum efficiency 4.0000');
  // gavel-max-sum leaves B nothing: it needs eps = 1 for SI.
  await expect(page.locator('[data-testid=frontier-table] tr[data-policy=gavel-max-sum] td').nth(4)).toHaveText('1.0000');
  await expect(page.locator('[data-testid=frontier-table] tr[data-policy=oef-coop] td').nth(4)).toHaveText('0.0000');
  // Each curve starts at 3.75 (eps = 0) and ends at 4 (eps = 1): the first point is lower on
  // the page (larger SVG y) than the last.
  const ends = await chart.locator('polyline.series').evaluateAll((lines) => lines.map((l) => {
    const pts = l.getAttribute('points').trim().split(' ').map((p) => p.split(',').map(Number));
    return [pts.length, pts[0][1], pts[pts.length - 1][1]];
  }));
  for (const [count, first, last] of ends) {
    expect(count).toBe(21);
    expect(first).toBeGreaterThan(last);
  }
  await page.screenshot({ path: 'tests/output/frontier.png', fullPage: true });
});

test('nash-welfare on 30 tenants x 6 types in the page: budgets spent, time logged', async ({ page }) => {
  await loadEngine(page);
  const out = await page.evaluate(() => {
    // A fixed 30 x 6 scenario (throughputs 1..8 from a simple recurrence), uncapped, weights 1..3.
    let seed = 7;
    const next = () => { seed = (seed * 48271) % 2147483647; return seed / 2147483647; };
    const gpu_types = Array.from({ length: 6 }, (_, j) => ({ name: `t${j}`, count: 4 + (j % 3) * 4 }));
    const tenants = Array.from({ length: 30 }, (_, i) => ({
      name: `u${i}`, weight: 1 + (i % 3), throughput: gpu_types.map(() => 1 + 7 * next()),
    }));
    const scenario = { gpu_types, tenants };
    const times = [];
    let report;
    for (let k = 0; k < 7; k++) {
      const t0 = performance.now();
      report = window.fairground.solve(scenario, 'nash-welfare');
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    const spent = report.market.prices.reduce((s, p, j) => s + p * gpu_types[j].count, 0);
    const budgets = tenants.reduce((s, t) => s + t.weight, 0);
    return { median: times[3], spent, budgets, sharing: report.properties.sharing_incentive.holds, envy: report.properties.envy_freeness.holds };
  });
  console.log(`nash-welfare 30 x 6 in the page (solve and every property check): median ${out.median.toFixed(1)} ms of 7`);
  // Equal incomes, no caps: every GPU is sold and every budget spent, sum_j p_j n_j = sum_i w_i.
  expect(Math.abs(out.spent - out.budgets)).toBeLessThan(1e-6 * out.budgets);
  expect(out.sharing && out.envy).toBe(true);
});

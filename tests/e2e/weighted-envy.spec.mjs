// Weighted envy-freeness as the playground shows it: badges, heatmap, compare table and the
// JavaScript API agree with envy recomputed here from the allocation (every ordered pair: nobody
// is capped). The scenario is hand-solved in crates/fairground-core/tests/weighted_envy.rs.
import { test, expect, settled, openFresh, loadEngine } from './fixtures.mjs';

const scenario = {
  gpu_types: [{ name: 'x', count: 5 }, { name: 'y', count: 5 }],
  tenants: [
    { name: 'a', throughput: [1, 4], weight: 1 },
    { name: 'b', throughput: [1, 1], weight: 1 },
    { name: 'c', throughput: [1, 3], weight: 3 },
  ],
};
const speedup = [[1, 4], [1, 1], [1, 3]];
const weight = [1, 1, 3];
// The same but c runs x twice as fast, so max-sum's optimum is unique (a all of y, c all of x);
// in `scenario` everyone gains alike from x and max-sum returns its canonical optimum.
const uniqueMaxSum = {
  ...scenario,
  tenants: [scenario.tenants[0], scenario.tenants[1], { name: 'c', throughput: [2, 3], weight: 3 }],
};
const speedupUnique = [[1, 4], [1, 1], [1, 1.5]];

// The pair README says a verdict shows: the largest envy relative to the two values compared
// (u_i(g_k)/w_k against u_i(g_i)/w_i), ties broken by the larger envy.
const worstEnvy = (g, s = speedup) => {
  const u = (i, k) => s[i][0] * g[k][0] + s[i][1] * g[k][1];
  let worst = { i: -1, k: -1, relative: -Infinity, envy: -Infinity };
  for (let i = 0; i < 3; i++) {
    for (let k = 0; k < 3; k++) {
      if (k === i) continue;
      const own = u(i, i) / weight[i];
      const theirs = u(i, k) / weight[k];
      const scale = Math.max(Math.abs(own), Math.abs(theirs));
      const relative = scale > 0 ? (theirs - own) / scale : 0;
      const envy = theirs - own;
      if (relative > worst.relative || (relative === worst.relative && envy > worst.envy)) worst = { i, k, relative, envy };
    }
  }
  return worst;
};

test.beforeEach(async ({ page }) => {
  await openFresh(page);
  await page.getByTestId('import').setInputFiles({
    name: 'weighted.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(scenario)),
  });
  await expect(page.locator('[data-testid=allocation-chart] g.bar')).toHaveCount(3);
  await settled(page);
});

test('badges and heatmap agree with envy recomputed from the allocation', async ({ page }) => {
  // The JavaScript API gives the same allocation the page shows; recompute envy from it.
  await loadEngine(page);
  const api = (policy) => page.evaluate(([s, p]) => window.fairground.solve(s, p), [scenario, policy]);

  const oef = await api('oef-coop');
  expect(worstEnvy(oef.allocation).relative).toBeLessThanOrEqual(1e-7);
  expect(oef.properties.envy_freeness.holds).toBe(true);
  expect(oef.efficiency).toBeCloseTo(1010 / 47, 7); // hand-solved
  await expect(page.getByTestId('efficiency')).toContainText('21.4894');
  await expect(page.getByTestId('badge-EF')).toHaveClass(/pass/);
  await expect(page.locator('[data-testid=envy-heatmap] rect.heat-cell.envy')).toHaveCount(0);

  await page.getByTestId('import').setInputFiles({
    name: 'unique.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(uniqueMaxSum)),
  });
  await settled(page);
  const maxSum = await page.evaluate(([s, p]) => window.fairground.solve(s, p), [uniqueMaxSum, 'gavel-max-sum']);
  const worst = worstEnvy(maxSum.allocation, speedupUnique);
  // b gets nothing and envies both others fully; a's bundle, worth 5 to b, most.
  expect([worst.i, worst.k]).toEqual([1, 0]);
  expect(maxSum.properties.envy_freeness.holds).toBe(false);
  expect(maxSum.properties.envy_freeness.pair).toEqual([1, 0]);
  await page.getByTestId('policy-select').selectOption('gavel-max-sum');
  await settled(page);
  await expect(page.getByTestId('badge-EF')).toHaveClass(/fail/);
  await expect(page.getByTestId('badge-EF').locator('.witness')).toContainText(`b envies a: it values that bundle ${worst.envy.toFixed(4)} more`);
  // The heatmap's vermillion cells are exactly the recomputed envious pairs.
  const envious = [];
  const u = (i, k) => speedupUnique[i][0] * maxSum.allocation[k][0] + speedupUnique[i][1] * maxSum.allocation[k][1];
  for (let i = 0; i < 3; i++) for (let k = 0; k < 3; k++) {
    if (i !== k && u(i, k) / weight[k] - u(i, i) / weight[i] > 1e-6) envious.push(`${i},${k}`);
  }
  expect(envious).toContain('2,0');
  await expect(page.locator('[data-testid=envy-heatmap] rect.heat-cell.envy')).toHaveCount(envious.length);
});

test('the compare table shows the recomputed EF verdict for every policy', async ({ page }) => {
  await loadEngine(page);
  await page.getByTestId('mode-compare').click();
  await expect(page.getByTestId('compare-table')).toBeVisible();
  await expect(page.getByTestId('solving')).toHaveText('');
  const rows = page.locator('[data-testid=compare-table] tbody tr');
  const count = await rows.count();
  expect(count).toBeGreaterThanOrEqual(9);
  for (let r = 0; r < count; r++) {
    const cells = await rows.nth(r).locator('td').allTextContents();
    const policy = cells[0];
    const report = await page.evaluate(([s, p]) => window.fairground.solve(s, p), [scenario, policy]);
    const { relative: envy } = worstEnvy(report.allocation);
    const ef = cells[cells.length - 2];
    if (envy > 1e-4) expect(ef, `${policy}: envy ${envy}`).toBe('✗');
    else if (envy < 1e-9) expect(ef, `${policy}: envy ${envy}`).toBe('✓');
  }
});

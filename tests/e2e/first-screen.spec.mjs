import { test, expect } from './fixtures.mjs';

test('opens on the default scenario with a real allocation chart', async ({ page }) => {
  await page.goto('./');
  const chart = page.getByTestId('allocation-chart');
  await expect(chart).toBeVisible();

  // The default preset: six of Gavel's measured models sharing 4 K80 + 4 P100 + 4 V100, so the
  // equal split draws 6 bars of 3 segments, 2/3 of a GPU of each type per tenant.
  await expect(chart.locator('g.bar')).toHaveCount(6);
  await expect(chart.locator('rect.segment')).toHaveCount(18);
  await expect(chart.locator('g.bar').first()).toHaveAttribute('data-tenant', 'ResNet-50 (batch size 64)');
  await expect(chart.locator('rect.segment title').first()).toHaveText(
    'ResNet-50 (batch size 64) on k80: 0.6667 GPUs',
  );
  // Independent value: (2/3) * sum_i sum_j T_ij / min_j T_ij over the cited figures = 35.4760
  // (computed by hand in Python from the preset table).
  await expect(page.getByTestId('efficiency')).toContainText('35.4760');

  await page.screenshot({ path: 'tests/output/first-screen.png', fullPage: true });
});

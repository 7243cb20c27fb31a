import { test, expect } from './fixtures.mjs';

test.beforeEach(async ({ page }) => {
  await page.goto('./');
  await expect(page.getByTestId('allocation-chart')).toBeVisible();
  await page.getByTestId('tab-simulation').click();
  await expect(page.getByTestId('simulate-tab')).toBeVisible();
});

test('runs the default workload under three policies and charts it', async ({ page }) => {
  await page.getByTestId('sim-run').click();
  const table = page.getByTestId('sim-table');
  await expect(table.locator('tbody tr')).toHaveCount(3, { timeout: 20_000 });
  for (const policy of ['fifo', 'gavel-las', 'oef-coop']) {
    // Every job finishes, except those needing more GPUs than any type has (reported).
    const row = table.locator(`tr[data-policy="${policy}"]`);
    const done = Number(await row.locator('td.done').textContent());
    const cannot = Number(await row.locator('td.unschedulable').textContent());
    expect(done + cannot).toBe(40);
    expect(done).toBeGreaterThan(30);
    expect(Number(await table.locator(`tr[data-policy="${policy}"] td.avg-jct`).textContent())).toBeGreaterThan(0);
  }
  await expect(page.locator('[data-testid=jct-cdf] polyline.series')).toHaveCount(3);
  await expect(page.locator('[data-testid=utilisation] polyline.series')).toHaveCount(3);
  expect(await page.locator('[data-testid=gantt] rect.gantt-bar').count()).toBeGreaterThan(40);
  await page.screenshot({ path: 'tests/output/simulator.png', fullPage: true });
  // The allocation tab keeps its state while the simulator has run.
  await page.getByTestId('tab-allocation').click();
  await expect(page.getByTestId('allocation-chart')).toBeVisible();
});

test('a long run shows progress and can be cancelled', async ({ page }) => {
  await page.getByTestId('sim-jobs').fill('5000');
  await page.getByTestId('sim-rate').fill('60');
  await page.getByTestId('sim-run').click();
  await expect(page.locator('[data-testid=sim-status] progress').first()).toBeVisible();
  await page.getByTestId('sim-cancel').click();
  await expect(page.getByTestId('sim-status')).toHaveText('Cancelled.', { timeout: 20_000 });
  await expect(page.getByTestId('sim-run')).toBeEnabled();
});

test('a CSV trace can be uploaded and run; bad input is explained', async ({ page }) => {
  await page.getByTestId('sim-cluster').fill('v100');
  await page.getByTestId('sim-run').click();
  await expect(page.getByTestId('sim-error')).toContainText('should be TYPE=GPUS');

  await page.getByTestId('sim-cluster').fill('v100=2,k80=2');
  const csv = 'tenant,job_type,arrival_s,total_steps,scale_factor\n' +
    'alice,A3C,0,7176,1\nbob,CycleGAN,0,4426,1\nalice,ResNet-50 (batch size 64),100,4395,2\n';
  await page.getByTestId('sim-trace').setInputFiles({ name: 'mine.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
  await expect(page.getByText('Trace: mine.csv')).toBeVisible();
  await page.getByTestId('sim-run').click();
  await expect(page.locator('[data-testid=sim-table] tbody tr')).toHaveCount(3, { timeout: 20_000 });
  await expect(page.locator('[data-testid=sim-table] tr[data-policy=fifo] td.done')).toHaveText('3');
});

// Today's cluster (issue 52): the preset of six current GPU types loads and solves as the CLI
// solves it, and the Simulation tab runs the same types from its built-in table.
import { test, expect, openFresh, choosePolicy } from './fixtures.mjs';

test.use({ viewport: { width: 1440, height: 900 } });

test("today's cluster loads in the playground and OEF solves it", async ({ page }) => {
  await openFresh(page);
  await page.getByTestId('preset-select').selectOption('todays-cluster');
  await expect(page.locator('[data-testid=tenants-table] tbody tr')).toHaveCount(10);
  await expect(page.locator('[data-testid=types-table] tbody tr')).toHaveCount(6);
  await page.getByTestId('policy-select').selectOption('oef-coop');
  // The objective `fairground solve www/scenarios/todays-cluster.json --policy oef-coop` prints.
  await expect(page.getByTestId('efficiency')).toContainText('76.3435', { timeout: 30_000 });
  // BERT-large trains fastest relative to its slowest type on the H100: OEF puts it there.
  const figure = page.locator('figure.chart', { has: page.getByTestId('allocation-chart') });
  await figure.getByTestId('chart-table').locator('summary').click();
  const bert = figure.locator('tr', { hasText: 'BERT-large SQuAD' });
  await expect(bert.locator('td').first()).toHaveText('1.265');
});

test("the simulator runs today's GPUs from its table, and refuses sharing policies on it", async ({ page }) => {
  await page.goto('./');
  await expect(page.getByTestId('allocation-chart')).toBeVisible();
  await page.getByTestId('tab-simulation').click();
  await page.getByTestId('sim-recipe-todays').click();
  await expect(page.getByTestId('sim-recipe-changes')).toContainText('throughput table: gavel → todays-gpus');
  await expect(page.getByTestId('sim-table-choice')).toHaveValue('todays-gpus');
  await page.getByTestId('sim-jobs').fill('40');
  await page.getByTestId('sim-run').click();
  const table = page.getByTestId('sim-table');
  await expect(table.locator('tbody tr')).toHaveCount(4, { timeout: 60_000 });
  // One utilisation column per type of today's cluster.
  for (const type of ['h100', 'a100-80', 'a100-40', 'rtx6000-ada', 'a10', 'v100']) {
    await expect(table.locator('thead')).toContainText(`util ${type}`);
  }
  // Jobs run Lambda's models.
  const tip = await page.locator('[data-testid=gantt] rect.gantt-bar title').first().textContent();
  expect(tip).toMatch(/\((ResNet-50|SSD|BERT|GNMT|NCF|Tacotron|Transformer-XL|WaveGlow)/);
  // A policy that shares GPUs needs measured pairs, which this table has none of.
  await choosePolicy(page, 'sjf-bsbf');
  await page.getByTestId('sim-run').click();
  await expect(page.getByTestId('sim-status')).toContainText("policy 'sjf-bsbf' shares GPUs", { timeout: 30_000 });
});

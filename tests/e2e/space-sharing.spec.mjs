// Space sharing in the playground: co-located pairs come with a preset or an imported
// scenario, gavel-las-packed shows the GPUs each pair shares, EF says why it has no verdict,
// and the pairs follow a renamed tenant. The hand case is solved in
// crates/fairground-core/src/policies/gavel_las_packed.rs (the V100 shared 14/17 of the time).
import { test, expect, settled, openFresh, loadEngine } from './fixtures.mjs';

const handCase = {
  gpu_types: [{ name: 'v100', count: 1 }, { name: 'k80', count: 1 }],
  tenants: [
    { name: 'a', throughput: [4, 1], max_gpus: 1 },
    { name: 'b', throughput: [2, 1], max_gpus: 1 },
  ],
  co_located: [{ tenants: ['a', 'b'], throughput: [[3, 1.5], [0.5, 0.5]] }],
};

const importScenario = (page, name, scenario) => page.getByTestId('import').setInputFiles({
  name, mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(scenario)),
});

const sharedRow = (page, pair) => page.locator(`[data-testid=shared-gpus] tr[data-pair="${pair}"] td`);

test('the space-sharing preset under gavel-las-packed shows the shared GPUs', async ({ page }) => {
  await openFresh(page);
  await page.getByTestId('preset-select').selectOption('gavel-space-sharing');
  await expect(page.locator('[data-testid=co-located-table] tbody tr')).toHaveCount(6);
  await page.getByTestId('policy-select').selectOption('gavel-las-packed');
  await settled(page);
  // 0.6046 of the V100 (`fairground solve www/scenarios/gavel-space-sharing.json`).
  const cells = sharedRow(page, 'Transformer (batch size 64)+A3C');
  await expect(cells).toHaveText(['Transformer (batch size 64) + A3C', '0.000', '0.000', '0.605']);
  await expect(page.getByTestId('badge-EF')).toContainText('? EF');
  await expect(page.getByTestId('badge-EF')).toContainText('Not defined: two tenants share GPUs');
  await expect(page.getByTestId('badge-SI')).toContainText('✓ SI');
  await expect(page.getByTestId('badge-PE')).toContainText('✓ PE');
  await expect(page.getByTestId('envy-heatmap')).toHaveCount(0);
  // gavel-las cannot share: no shared table, EF has its verdict again, and it is not PE once
  // sharing is possible: the witness shares GPUs.
  await page.getByTestId('policy-select').selectOption('gavel-las');
  await settled(page);
  await expect(page.getByTestId('shared-gpus')).toHaveCount(0);
  await expect(page.getByTestId('badge-EF')).toContainText('✓ EF');
  await expect(page.getByTestId('badge-PE')).toContainText('✗ PE');
  await expect(page.locator('[data-testid=badge-PE] tr.shared-row td').first()).toHaveText('shared by pairs');
});

test('imported pairs follow a rename, and a bad pair is refused at its place', async ({ page }) => {
  await openFresh(page);
  await importScenario(page, 'pair.json', handCase);
  await expect(page.locator('[data-testid=allocation-chart] g.bar')).toHaveCount(2);
  await page.getByTestId('policy-select').selectOption('gavel-las-packed');
  await settled(page);
  await expect(sharedRow(page, 'a+b')).toHaveText(['a + b', '0.824', '0.000']);
  await page.getByLabel('name of tenant 1').fill('alpha');
  await expect(sharedRow(page, 'alpha+b')).toHaveText(['alpha + b', '0.824', '0.000']);
  await expect(page.getByLabel('tenant 1 of pair 1')).toHaveValue('alpha');

  const bad = { ...handCase, co_located: [{ tenants: ['a', 'nobody'], throughput: [[3, 1.5], [0.5, 0.5]] }] };
  await importScenario(page, 'bad.json', bad);
  await expect(page.getByTestId('problems')).toContainText("pair 1's tenant 2: no tenant is named 'nobody'");
  // Removing the pair in the editor makes the scenario valid again.
  await page.getByLabel('remove pair a + nobody').click();
  await expect(page.getByTestId('problems')).toHaveCount(0);
  await settled(page);
  await expect(page.getByTestId('shared-gpus')).toHaveCount(0);
});

test('a pair typed into the editor shares GPUs', async ({ page }) => {
  await openFresh(page);
  await importScenario(page, 'plain.json', { ...handCase, co_located: undefined });
  await expect(page.getByTestId('co-located-table')).toHaveCount(0);
  await page.getByTestId('add-pair').click();
  await expect(page.getByLabel('tenant 2 of pair 1')).toHaveValue('b');
  for (const [label, value] of [
    ['throughput of a beside b on v100', '3'], ['throughput of b beside a on v100', '1.5'],
    ['throughput of a beside b on k80', '0.5'], ['throughput of b beside a on k80', 'half'],
  ]) {
    await page.getByLabel(label).fill(value);
  }
  // Not a number: kept, and located at its cell.
  await expect(page.getByTestId('problems')).toContainText("pair 1: b on k80: 'half' is not a number");
  await page.getByLabel('throughput of b beside a on k80').fill('0.5');
  await page.getByTestId('policy-select').selectOption('gavel-las-packed');
  await settled(page);
  await expect(sharedRow(page, 'a+b')).toHaveText(['a + b', '0.824', '0.000']);
});

test('the JavaScript module returns the shared GPUs with the report', async ({ page }) => {
  await openFresh(page);
  await loadEngine(page);
  const report = await page.evaluate((s) => window.fairground.solve(s, 'gavel-las-packed'), handCase);
  expect(report.shared[0][0]).toBeCloseTo(14 / 17, 7);
  expect(report.objective).toBeCloseTo(18 / 17, 7);
  expect(report.properties.envy_freeness.holds).toBeNull();
  expect(report.properties.envy_freeness.undecided).toContain('share GPUs');
});

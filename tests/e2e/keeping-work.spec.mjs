import { test, expect } from './fixtures.mjs';
import { readFile } from 'node:fs/promises';

test.beforeEach(async ({ page }) => {
  await page.goto('./');
  await page.evaluate(() => localStorage.clear());
  await page.goto('./');
  await expect(page.getByTestId('allocation-chart')).toBeVisible();
  await expect(page.getByTestId('solving')).toHaveText('');
});

const download = async (page, click) => {
  const [file] = await Promise.all([page.waitForEvent('download'), click()]);
  return { name: file.suggestedFilename(), body: await readFile(await file.path()) };
};

test('exports the allocation as CSV, the scenario as JSON and charts as SVG and PNG', async ({ page }) => {
  const csv = await download(page, () => page.getByTestId('export-csv').click());
  expect(csv.name).toBe('allocation-oef-coop.csv');
  const lines = csv.body.toString().trim().split('\n');
  expect(lines[0]).toBe('tenant,k80,p100,v100,utility');
  expect(lines).toHaveLength(7);

  const json = await download(page, () => page.getByTestId('export-json').click());
  const scenario = JSON.parse(json.body.toString());
  expect(scenario.tenants.map((t) => t.name)).toContain('CycleGAN');

  const svg = await download(page, () => page.getByRole('button', { name: 'download GPUs held per tenant, by type as SVG' }).click());
  expect(svg.name).toBe('allocation-oef-coop.svg');
  expect(svg.body.toString()).toContain('<svg');
  expect(svg.body.toString()).toContain('ResNet-50 (batch size 64)');

  const png = await download(page, () => page.getByRole('button', { name: 'download GPUs held per tenant, by type as PNG' }).click());
  expect(png.name).toBe('allocation-oef-coop.png');
  expect([...png.body.subarray(1, 4)].map((b) => String.fromCharCode(b)).join('')).toBe('PNG');
});

test('importing a scenario file loads it; a bad or oversized file changes nothing', async ({ page }) => {
  const input = page.getByTestId('import');
  await page.getByLabel('throughput of A3C on k80', { exact: true }).fill('9');
  await input.setInputFiles({ name: 'bad.json', mimeType: 'application/json', buffer: Buffer.from('{"gpu_types": [') });
  await expect(page.getByTestId('notice')).toContainText('bad.json could not be imported');
  await expect(page.getByLabel('throughput of A3C on k80', { exact: true })).toHaveValue('9');
  // A type error is located: the page's engine reads JSON without paths (fairground-core's
  // json-paths is off in the page, to save its bytes), so by line and column.
  await input.setInputFiles({ name: 'typo.json', mimeType: 'application/json',
    buffer: Buffer.from('{"gpu_types": [{"name": "k80", "count": "four"}], "tenants": []}') });
  await expect(page.getByTestId('notice')).toContainText(/typo\.json could not be imported \(\.: invalid type: string "four", expected u32 at line 1 column \d+\)/);
  await expect(page.getByLabel('throughput of A3C on k80', { exact: true })).toHaveValue('9');

  const big = Buffer.alloc(1024 * 1024 + 10, ' ');
  await input.setInputFiles({ name: 'big.json', mimeType: 'application/json', buffer: big });
  await expect(page.getByTestId('notice')).toContainText('over the 1024 KB limit; nothing was changed');
  await expect(page.getByLabel('throughput of A3C on k80', { exact: true })).toHaveValue('9');

  const good = {
    gpu_types: [{ name: 'a100', count: 2 }, { name: 'v100', count: 6 }],
    tenants: [{ name: 'bert', throughput: [3, 1] }, { name: 'gpt', throughput: [5, 2], weight: 2 }],
  };
  await input.setInputFiles({ name: 'good.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(good)) });
  await expect(page.getByLabel('GPUs of a100', { exact: true })).toHaveValue('2');
  await expect(page.locator('[data-testid=allocation-chart] g.bar')).toHaveCount(2);
});

test('the embed demo page shows the iframe and calls the JavaScript API', async ({ page }) => {
  await page.goto('./embed.html');
  const frame = page.frameLocator('#demo');
  await expect(frame.getByTestId('allocation-chart')).toBeVisible();
  await expect(frame.locator('[data-testid=allocation-chart] g.bar')).toHaveCount(2);
  // Hand-solved textbook case: the fast GPU to A, the slow one to B, efficiency 3.
  await expect(page.locator('#api-result')).toContainText('efficiency 3, allocation [[0,1],[1,0]]');
});

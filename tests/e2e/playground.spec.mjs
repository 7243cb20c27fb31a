import { test, expect, settled, openFresh, loadEngine } from './fixtures.mjs';

const cell = (page, label) => page.getByLabel(label, { exact: true });
const efficiency = (page) => page.getByTestId('efficiency');

test.beforeEach(async ({ page }) => {
  await openFresh(page);
});

test('editing a cell re-solves and the chart changes', async ({ page }) => {
  const before = await efficiency(page).textContent();
  const tooltipsBefore = await page.locator('[data-testid=allocation-chart] rect.segment title').allTextContents();
  await cell(page, 'throughput of A3C on v100').fill('40');
  await expect(efficiency(page)).not.toHaveText(before);
  await settled(page);
  const tooltipsAfter = await page.locator('[data-testid=allocation-chart] rect.segment title').allTextContents();
  expect(tooltipsAfter).not.toEqual(tooltipsBefore);
});

test('pasting a 3x4 block fills and extends the grid', async ({ page }) => {
  const target = cell(page, 'throughput of CycleGAN on k80');
  await target.focus();
  await target.evaluate((el) => {
    const data = new DataTransfer();
    data.setData('text/plain', '1\t2\t3\t4\n5\t6\t7\t8\n9\t10\t11\t12\n');
    el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
  });
  // CycleGAN's row takes the first line; two new tenants and a fourth GPU type appear.
  await expect(page.locator('[data-testid=tenants-table] tbody tr')).toHaveCount(8);
  await expect(page.locator('[data-testid=types-table] tbody tr')).toHaveCount(4);
  await expect(cell(page, 'throughput of CycleGAN on gpu1')).toHaveValue('4');
  await expect(cell(page, 'throughput of tenant2 on p100')).toHaveValue('10');
  // The other tenants' throughputs on the new type are not guessed: marked until filled, and
  // meanwhile the results on screen are the last valid scenario's, greyed and said so.
  await expect(page.getByTestId('problems')).toContainText('A3C on gpu1: empty: fill in throughput per GPU');
  await expect(page.getByTestId('stale-results')).toBeVisible();
  const first = cell(page, 'throughput of ResNet-50 (batch size 64) on gpu1');
  await first.evaluate((el) => {
    const data = new DataTransfer();
    data.setData('text/plain', '1\n1\n1\n1\n1\n');
    el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
  });
  await settled(page);
  await expect(page.getByTestId('stale-results')).toHaveCount(0);
  await expect(page.locator('[data-testid=allocation-chart] g.bar')).toHaveCount(8);
});

test('a share link reproduces exactly the same numbers', async ({ page, browser }) => {
  await cell(page, 'GPUs of v100').fill('7');
  await cell(page, 'weight of LM (batch size 20)').fill('2.5');
  await settled(page);
  await expect(page).toHaveURL(/#v=1&s=/);
  const url = page.url();
  const shown = await efficiency(page).textContent();
  const bars = await page.locator('[data-testid=allocation-chart] rect.segment title').allTextContents();

  const fresh = await browser.newContext(); // no storage: the link alone must carry everything
  const other = await fresh.newPage();
  const seen = [];
  other.on('console', (msg) => seen.push(`console ${msg.type()}: ${msg.text()}`));
  other.on('pageerror', (err) => seen.push(`uncaught: ${err.message}`));
  other.on('requestfailed', (req) => seen.push(`request failed: ${req.url()}`));
  await other.goto(url);
  // A second context starts cold: its own cache, so the engine is fetched and compiled again
  // while the first page stays open. Measured at 0.25-1.0 s (idle to load average 7 on 2
  // cores); the window is wider than the default 5 s for a shared, busy CI machine, and a
  // failure says what the page showed instead.
  try {
    await expect(other.getByTestId('allocation-chart')).toBeVisible({ timeout: 15_000 });
  } catch (err) {
    const text = await other.locator('body').innerText().catch((e) => `(no text: ${e.message})`);
    throw new Error(`no chart on the linked page; it showed:\n${text.slice(0, 800)}\n${seen.join('\n')}\n${err.message}`);
  }
  expect(seen.filter((line) => !line.startsWith('console warning'))).toEqual([]);
  await expect(other.getByTestId('efficiency')).toHaveText(shown);
  expect(await other.locator('[data-testid=allocation-chart] rect.segment title').allTextContents()).toEqual(bars);
  await expect(other.getByLabel('GPUs of v100', { exact: true })).toHaveValue('7');
  await fresh.close();
});

test('reload keeps edits, even a half-typed invalid cell', async ({ page }) => {
  await cell(page, 'throughput of A3C on k80').fill('12');
  await settled(page);
  await cell(page, 'throughput of LM (batch size 20) on p100').fill('5x');
  await page.reload();
  await expect(cell(page, 'throughput of A3C on k80')).toHaveValue('12');
  await expect(cell(page, 'throughput of LM (batch size 20) on p100')).toHaveValue('5x');
  await expect(cell(page, 'throughput of LM (batch size 20) on p100')).toHaveClass(/invalid/);
});

test('an invalid cell shows the engine message and keeps the last chart', async ({ page }) => {
  const before = await efficiency(page).textContent();
  const input = cell(page, 'throughput of A3C on p100');
  await input.fill('-1');
  await expect(input).toHaveClass(/invalid/);
  // Beside the cell (while it has the focus) and in the list, placed in words.
  await expect(page.locator('td:focus-within .cell-error')).toHaveText('must be finite and >= 0 (got -1)');
  await expect(page.getByTestId('problems')).toContainText('A3C on p100: must be finite and >= 0 (got -1)');
  await expect(page.getByTestId('allocation-chart')).toBeVisible();
  await expect(efficiency(page)).toHaveText(before);
});

test('?embed shows only the results of the linked scenario', async ({ page }) => {
  await page.getByTestId('preset-select').selectOption('textbook-2x2');
  await settled(page);
  const hash = new URL(page.url()).hash;
  await page.goto(`./?embed${hash}`);
  await expect(page.getByTestId('allocation-chart')).toBeVisible();
  await expect(page.locator('[data-testid=allocation-chart] g.bar')).toHaveCount(2);
  await expect(page.getByTestId('tenants-table')).toHaveCount(0);
  await expect(page.getByTestId('badges')).toBeVisible();
});

test('keyboard-only editing', async ({ page }) => {
  const target = 'throughput of ResNet-50 (batch size 64) on k80';
  for (let i = 0; i < 80; i++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate((t) => document.activeElement?.getAttribute('aria-label') === t, target)) break;
  }
  await expect(cell(page, target)).toBeFocused();
  await page.keyboard.press('Control+A');
  await page.keyboard.type('3');
  await expect(cell(page, target)).toHaveValue('3');
  // Shift+Tab back to the row's max-GPUs cell and cap ResNet at one GPU.
  await page.keyboard.press('Shift+Tab');
  await page.keyboard.type('1');
  await settled(page);
  const held = await page.locator('[data-testid=allocation-chart] g.bar').first().locator('rect.segment title').allTextContents();
  const total = held.map((t) => Number(t.match(/: ([0-9.]+) GPUs/)[1])).reduce((a, b) => a + b, 0);
  expect(total).toBeLessThanOrEqual(1.0001);
});

test('names with markup render as text', async ({ page }) => {
  const evil = '<img src=x onerror=window.pwned=1>';
  await cell(page, 'name of tenant 1').fill(evil);
  await settled(page);
  await expect(page.locator('[data-testid=allocation-chart] g.bar').first()).toHaveAttribute('data-tenant', evil);
  expect(await page.locator('img').count()).toBe(0);
  expect(await page.evaluate(() => window.pwned)).toBeUndefined();
});

test('an oversized or damaged link is refused with a message', async ({ page }) => {
  await page.goto(`./#s=${'A'.repeat(70_000)}`);
  await page.reload(); // a fragment-only navigation does not reload the page
  await expect(page.getByTestId('notice')).toContainText('over the 64 KB limit');
  await expect(page.getByTestId('allocation-chart')).toBeVisible();
  await page.goto('./#s=!!!');
  await page.reload();
  await expect(page.getByTestId('notice')).toContainText('damaged');
});

test('a link from a newer format, or naming what the page lacks, says so in words', async ({ page }) => {
  // Issue 78: a newer format's link was called damaged, and an unknown policy was ignored.
  await page.goto('./#v=7&s=AAAA');
  await page.reload();
  await expect(page.getByTestId('notice')).toContainText('made by a newer Fairground');
  await expect(page.getByTestId('notice')).toContainText('format 7');
  await page.goto('./#policy=oef-koop&view=slides');
  await page.reload();
  await settled(page);
  await expect(page.getByTestId('notice')).toContainText("a policy this page does not have, 'oef-koop'");
  await expect(page.getByTestId('notice')).toContainText("a view this page does not have, 'slides'");
});

test('compare mode shows every policy', async ({ page }) => {
  await page.getByTestId('mode-compare').click();
  await expect(page.locator('[data-testid=compare-table] tbody tr')).toHaveCount(17);
  await expect(page.locator('[data-testid=compare-si] circle.point')).toHaveCount(17);
  // OEF-coop is the most efficient of the SI + EF policies.
  const oef = Number(await page.locator('[data-testid=compare-table] tr[data-policy=oef-coop] td.efficiency').textContent());
  const equal = Number(await page.locator('[data-testid=compare-table] tr[data-policy=equal-share] td.efficiency').textContent());
  expect(oef).toBeGreaterThan(equal);
  await page.screenshot({ path: 'tests/output/compare-mode.png', fullPage: true });
});

test('a failed property badge is marked, and opens on its witness', async ({ page }) => {
  await page.getByTestId('policy-select').selectOption('gavel-max-sum');
  await settled(page);
  // Max-sum hands the cluster to the fastest tenants: SI and EF fail. Badges open closed (a
  // glance under the chart); a click shows the witness.
  const si = page.getByTestId('badge-SI');
  await expect(si).toHaveClass(/fail/);
  await expect(si.locator('summary')).toHaveText('✗ SI sharing incentive');
  await expect(si).toHaveJSProperty('open', false);
  await si.locator('summary').click();
  await expect(si.locator('.witness')).toBeVisible();
  await expect(si).toContainText('of its equal-split utility');
  await expect(page.getByTestId('badge-EF').locator('.witness')).toContainText('envies');
  await expect(page.getByTestId('badge-PE')).toHaveClass(/pass/);
  await expect(page.getByTestId('badge-PE')).toHaveJSProperty('open', false);
});

test('the JavaScript API returns what the CLI prints', async ({ page }) => {
  await loadEngine(page);
  const report = await page.evaluate(() => {
    const scenario = {
      gpu_types: [{ name: 'slow', count: 1 }, { name: 'fast', count: 1 }],
      tenants: [{ name: 'A', throughput: [1, 2] }, { name: 'B', throughput: [1, 1] }],
    };
    return window.fairground.solve(scenario, 'oef-coop');
  });
  expect(report.policy).toBe('oef-coop');
  expect(report.efficiency).toBeCloseTo(3, 9); // hand-solved: fast GPU to A, slow to B
  expect(report.allocation).toEqual([[0, 1], [1, 0]]);
  const error = await page.evaluate(() => {
    try { window.fairground.solve({ gpu_types: [] }, 'oef-coop'); return null; } catch (e) { return e.message; }
  });
  expect(error).toContain('tenants');
});

// A scenario of `n` tenants on `k` types with varied throughputs (no two tenants alike).
const grid = (n, k) => {
  const gpu_types = Array.from({ length: k }, (_, j) => ({ name: `t${j}`, count: 4 + j }));
  const tenants = Array.from({ length: n }, (_, i) => ({
    name: `u${i}`,
    throughput: gpu_types.map((_, j) => 1 + ((i * 7 + j * 13) % 17) / 4),
  }));
  return { gpu_types, tenants };
};
const importScenario = async (page, scenario, bars) => {
  await page.getByTestId('import').setInputFiles({
    name: 'grid.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(scenario)),
  });
  await expect(page.locator('[data-testid=allocation-chart] g.bar')).toHaveCount(bars);
  await settled(page);
};

test('the SP badge says what the probe costs and offers it only when the page can finish it', async ({ page }) => {
  // 9 tenants x 2 types: 9 x (2 types x 10 factors + 16 random rows) = 324 re-solves, about a
  // second; one tenant past the 8 the page probes unasked. The page times its own solves, so a
  // scenario near its 20 s limit would be offered on a quiet machine and not on a busy one
  // (12 x 3, 552 re-solves, was judged 27 s while CI built beside it): this one stays well inside.
  await importScenario(page, grid(9, 2), 9);
  const sp = page.getByTestId('badge-SP');
  await sp.locator('summary').click(); // open the badge on its text
  await expect(sp).toContainText(/re-solves the policy 324 times, about \d+ (s|min) at this scenario's speed/);
  await page.getByTestId('run-sp-probe').click();
  await settled(page);
  await expect(sp).toContainText(/No profitable lie among \d+ misreports|gains/);
  // 60 x 8: 60 x (8 x 10 + 16) = 5,760 re-solves of oef-coop, minutes at any speed: not offered.
  await importScenario(page, grid(60, 8), 60);
  await expect(page.getByTestId('sp-too-long')).toContainText('re-solve oef-coop 5760 times');
  await expect(page.getByTestId('sp-too-long')).toContainText('fairground solve');
  await expect(page.getByTestId('run-sp-probe')).toHaveCount(0);
});

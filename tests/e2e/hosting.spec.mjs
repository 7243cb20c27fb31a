// The site as a host serves it (issue 64): dist/ unchanged at a sub-path, as GitHub Pages or a
// documentation site would put it, and a page that says what it is loading before its wasm has
// arrived (or that it could not load). `cargo xtask test` serves dist/ a second time at
// /docs/fairground/ only and passes that address in FAIRGROUND_SUB_PATH_URL.
import { test as bare } from '@playwright/test';
import { test, expect, settled } from './fixtures.mjs';

const SUB = process.env.FAIRGROUND_SUB_PATH_URL;

test.describe('at a sub-path', () => {
  test.skip(!SUB, 'FAIRGROUND_SUB_PATH_URL is not set (cargo xtask test sets it)');

  test('the playground, its definitions, workers and guide work unchanged', async ({ page }) => {
    // The fixture fails the test on any 404: an asset asked for at the host's root is one.
    const outside = [];
    page.on('request', (r) => {
      if (!new URL(r.url()).pathname.startsWith(new URL(SUB).pathname) && r.url().startsWith('http')) outside.push(r.url());
    });
    await page.goto(SUB);
    await settled(page);
    // Texts fetched beside the page, and the solve worker (Compare all) started from it.
    await page.getByTestId('glossary-toggle').click();
    await expect(page.getByTestId('glossary').getByTestId('term-PE')).toBeVisible();
    await page.getByTestId('mode-compare').click();
    await expect(page.getByTestId('compare-table')).toBeVisible({ timeout: 30_000 });
    // The simulator's worker too.
    await page.getByTestId('tab-simulation').click();
    await page.getByTestId('sim-run').click();
    await expect(page.getByTestId('sim-table').locator('tbody tr')).toHaveCount(3, { timeout: 30_000 });
    // The guide, linked from the page.
    const guide = await page.getByTestId('guide-link').getAttribute('href');
    await page.goto(new URL(guide, page.url()).href);
    await expect(page.locator('h1').first()).toBeVisible();
    expect(outside).toEqual([]);
  });

  test('embed.html beside it shows the embedded results', async ({ page }) => {
    await page.goto(new URL('embed.html', SUB).href);
    const frame = page.frameLocator('#demo');
    await expect(frame.getByTestId('allocation-chart')).toBeVisible({ timeout: 20_000 });
    await expect(page.locator('#api-result')).toContainText('solve(scenario, "oef-coop") -> efficiency');
  });
});

test('a line says what is loading until the page has drawn', async ({ page }) => {
  let release;
  const held = new Promise((resolve) => { release = resolve; });
  await page.route(/fairground-web-.*_bg\.wasm$/, async (route) => { await held; await route.continue(); });
  await page.goto('./');
  const boot = page.locator('#boot');
  await expect(boot).toBeVisible();
  await expect(boot).toContainText('is loading');
  await expect(boot).toHaveAttribute('role', 'status');
  release();
  await settled(page);
  await expect(boot).toHaveCount(0);
});

// The bare test: the aborted download is logged as an error, which is this test's point.
bare('a page that cannot load its engine says so and what to do', async ({ page }) => {
  await page.route(/fairground-web-.*_bg\.wasm$/, (route) => route.abort('internetdisconnected'));
  await page.goto('./');
  const boot = page.locator('#boot');
  await expect(boot).toContainText('could not load');
  await expect(boot).toContainText('reload the page');
});

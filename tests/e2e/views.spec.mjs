// Views in links (issue 46): the address says what is on screen (the view and the policy), so a
// speaker's link per slide reopens that slide.
import { test, expect, settled, openFresh } from './fixtures.mjs';

test.beforeEach(async ({ page }) => {
  await openFresh(page);
});

const hashParam = (page, key) => new URL(page.url()).hash.slice(1).split('&')
  .map((p) => p.split('=')).find(([k]) => k === key)?.[1];

test('the address follows the view and the policy, and a link reopens them', async ({ page }) => {
  await page.getByTestId('policy-select').selectOption('gavel-las');
  await settled(page);
  await expect.poll(() => hashParam(page, 'policy')).toBe('gavel-las');
  expect(hashParam(page, 'view')).toBeUndefined();
  await page.getByTestId('mode-frontier').click();
  await expect.poll(() => hashParam(page, 'view')).toBe('frontier');
  const slide = page.url();

  // A fresh reader (nothing saved) opens the link: the same view and policy.
  await page.evaluate(() => localStorage.clear());
  await page.goto('about:blank');
  await page.goto(slide);
  await expect(page.getByTestId('mode-frontier')).toHaveAttribute('aria-pressed', 'true');
  await expect(page.getByTestId('frontier-chart')).toBeVisible({ timeout: 20_000 });
  await page.getByTestId('mode-single').click();
  await expect(page.getByTestId('policy-select')).toHaveValue('gavel-las');

  // The Simulation tab is a view too.
  await page.getByTestId('tab-simulation').click();
  await expect.poll(() => hashParam(page, 'view')).toBe('simulation');
  const simulation = page.url();
  await page.goto('about:blank');
  await page.goto(simulation);
  await expect(page.getByTestId('tab-simulation')).toHaveAttribute('aria-pressed', 'true');
  await expect(page.getByTestId('sim-run')).toBeVisible();
});

test('an unknown view or policy in a link is ignored, never shown', async ({ page }) => {
  const link = new URL(page.url());
  await page.goto(`${link.origin}${link.pathname}#view=%3Cb%3Ex&policy=no-such-policy`);
  await page.reload();
  await settled(page);
  await expect(page.getByTestId('mode-single')).toHaveAttribute('aria-pressed', 'true');
  await expect(page.getByTestId('policy-select')).toHaveValue('oef-coop');
  await expect(page.getByTestId('allocation-chart')).toBeVisible();
});

test('an embedded chart stays above the fold, links back, and sizes its frame', async ({ page }) => {
  await page.goto('./embed.html');
  const frame = page.frameLocator('#demo');
  await expect(frame.getByTestId('allocation-chart')).toBeVisible();
  // Failed verdicts stay closed in a frame: the chart comes first.
  await expect(frame.locator('[data-testid=badge-PE][open]')).toHaveCount(0);
  const back = frame.getByTestId('open-full');
  await expect(back).toHaveAttribute('href', /^\.\/#v=1&s=/);
  // The frame grew or shrank to the results the page reported (not the 400 px it started at).
  const iframe = page.locator('#demo');
  await expect.poll(async () => (await iframe.boundingBox()).height).not.toBe(400);
  // Sized to its content (issue 64: 1,234 px, mostly a 520-px heatmap of two tenants).
  await expect.poll(async () => (await iframe.boundingBox()).height).toBeLessThan(1000);
  const inner = await frame.locator('html').evaluate((root) => root.scrollHeight);
  const outer = (await iframe.boundingBox()).height;
  expect(Math.abs(outer - (inner + 2))).toBeLessThanOrEqual(4);
  // Nothing blank under the last line but the page's own padding (issue 78: 60-84 px, the
  // frame's height once measured as the document's, which is never less than the frame).
  await expect.poll(async () => {
    const last = await back.evaluate((a) => a.closest('p').getBoundingClientRect().bottom);
    return (await iframe.boundingBox()).height - last;
  }).toBeLessThanOrEqual(30);
  // The heatmap is drawn at a pixel a unit, no bigger than its two cells and names need.
  const heatmap = frame.getByTestId('envy-heatmap');
  const drawn = await heatmap.evaluate((svg) => [svg.getBoundingClientRect().width, svg.viewBox.baseVal.width, svg.getBoundingClientRect().height]);
  expect(Math.abs(drawn[0] - drawn[1])).toBeLessThanOrEqual(1);
  expect(drawn[0]).toBeLessThan(250);
  expect(drawn[2]).toBeLessThan(250);
});

test('an embedded chart starts at the top of its frame (600 x 400)', async ({ page }) => {
  await page.setViewportSize({ width: 600, height: 400 });
  const src = await page.request.get('./embed.html').then((r) => r.text()).then((t) => t.match(/src="\.\/(\?embed#[^"]+)"/)[1]);
  await page.goto(`./${src.replaceAll('&amp;', '&')}`);
  await expect(page.getByTestId('allocation-chart')).toBeVisible();
  await expect(page.getByTestId('solving')).toHaveText('');
  // The first line is the efficiency, not the empty line kept for "solving" (60 px of blank).
  const top = await page.getByTestId('efficiency').evaluate((e) => e.getBoundingClientRect().top);
  expect(top).toBeLessThanOrEqual(32);
});

test('a link reopens Compare all', async ({ page }) => {
  await page.getByTestId('mode-compare').click();
  await expect.poll(() => hashParam(page, 'view')).toBe('compare');
  const slide = page.url();
  await page.evaluate(() => localStorage.clear());
  await page.goto('about:blank');
  await page.goto(slide);
  await expect(page.getByTestId('mode-compare')).toHaveAttribute('aria-pressed', 'true');
  await expect(page.getByTestId('compare-table')).toBeVisible({ timeout: 20_000 });
});

test('an edit does not move the figures: the status line keeps its space', async ({ page }) => {
  // From the document's top: filling a cell scrolls the window to it.
  const top = () => page.getByTestId('allocation-chart').evaluate((e) => e.getBoundingClientRect().top + window.scrollY);
  const before = await top();
  // An edit re-solves and re-probes (6 tenants: the probe runs by itself), with a status line.
  // (9 keeps A3C's slowest type, k80, its speedups' reference: a new reference is announced.)
  // Every text the status line shows is recorded as it changes: beside CI's builds the probe
  // can come and go between two polls of an assertion.
  await page.getByTestId('solving').evaluate((status) => {
    window.statusTexts = [];
    new MutationObserver(() => window.statusTexts.push(status.textContent))
      .observe(status, { childList: true, characterData: true, subtree: true });
  });
  await page.getByLabel('throughput of A3C on v100', { exact: true }).fill('9');
  expect(await top()).toBe(before);
  await expect.poll(() => page.evaluate(() => window.statusTexts.some((t) => t !== ''))).toBe(true);
  await settled(page);
  expect(await top()).toBe(before);
});

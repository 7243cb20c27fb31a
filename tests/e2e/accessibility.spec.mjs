// WCAG AA by axe-core (issue 47): no serious or critical violation on each view, in both
// schemes, in presenter mode, on the tour and in the embed.
import AxeBuilder from '@axe-core/playwright';
import { test, expect, settled, openFresh } from './fixtures.mjs';

// The serious and critical violations on the page as it is, each named with where it is.
const violations = async (page) => {
  const { violations } = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.help} (${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join('; ')})`);
};

for (const scheme of ['light', 'dark']) {
  test(`axe finds nothing serious on every view (${scheme})`, async ({ page }) => {
    test.setTimeout(120_000);
    await page.emulateMedia({ colorScheme: scheme });
    await openFresh(page);
    for (const badge of ['SI', 'EF', 'PE', 'SP']) await page.getByTestId(`badge-${badge}`).locator('summary').click();
    expect(await violations(page), 'one policy').toEqual([]);
    await page.getByTestId('mode-compare').click();
    await expect(page.getByTestId('compare-table')).toBeVisible({ timeout: 20_000 });
    expect(await violations(page), 'compare all').toEqual([]);
    await page.getByTestId('mode-frontier').click();
    await expect(page.getByTestId('frontier-chart')).toBeVisible({ timeout: 30_000 });
    expect(await violations(page), 'price of fairness').toEqual([]);
    await page.getByTestId('tab-simulation').click();
    await page.getByTestId('sim-run').click();
    await expect(page.getByTestId('sim-table').locator('tbody tr')).toHaveCount(3, { timeout: 30_000 });
    expect(await violations(page), 'simulation').toEqual([]);
  });

  test(`axe finds nothing serious in presenter mode and the embed (${scheme})`, async ({ page }) => {
    await page.emulateMedia({ colorScheme: scheme });
    await openFresh(page);
    await page.keyboard.press('p');
    await expect(page.locator('main.presenting')).toHaveCount(1);
    expect(await violations(page), 'presenter mode').toEqual([]);
    await page.keyboard.press('Escape');
    const here = new URL(page.url());
    await page.goto(`${here.origin}${here.pathname}?embed${here.hash}`);
    await settled(page);
    expect(await violations(page), 'embed').toEqual([]);
  });
}

test('axe finds nothing serious on any step of the tour', async ({ page }) => {
  test.setTimeout(60_000);
  await openFresh(page);
  await page.getByTestId('tour-start').click();
  for (let step = 1; step <= 7; step += 1) {
    await expect(page.getByTestId('tour-title')).toContainText(`Step ${step} of 7`);
    await expect(page.getByTestId('solving')).toHaveText('', { timeout: 30_000 });
    expect(await violations(page), `tour step ${step}`).toEqual([]);
    if (step < 7) await page.getByTestId('tour-next').click();
  }
});

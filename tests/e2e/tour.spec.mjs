// The guided tour (issue 46): steps on the textbook case, stepped with the arrow keys outside
// editable fields, each step its own link.
import { test, expect, settled, openFresh } from './fixtures.mjs';

const hashParam = (page, key) => new URL(page.url()).hash.slice(1).split('&')
  .map((p) => p.split('=')).find(([k]) => k === key)?.[1];

// Opens a fresh page (nothing saved) on `fragment`.
const openOn = async (page, fragment) => {
  const at = new URL(page.url());
  await page.evaluate(() => localStorage.clear());
  await page.goto('about:blank');
  await page.goto(`${at.origin}${at.pathname}#${fragment}`);
};

test.beforeEach(async ({ page }) => {
  await openFresh(page);
});

test('the tour steps with the arrow keys, and each step is a link', async ({ page }) => {
  await page.getByTestId('tour-start').click();
  await expect(page.getByTestId('tour-title')).toHaveText('Step 1 of 7: The equal split');
  await expect(page.getByTestId('policy-select')).toHaveValue('equal-share');
  await settled(page);
  // The step's claim, on the page: the equal split of the textbook 2 x 2 is improvable by 0.5.
  await expect(page.getByTestId('badge-PE')).toContainText('adds 0.5000 (20.00%) to efficiency');
  await expect(page.getByTestId('tour-back')).toBeDisabled();

  await page.locator('h1').click();
  await page.keyboard.press('ArrowRight');
  await expect(page.getByTestId('tour-title')).toHaveText('Step 2 of 7: Max-min fairness');
  await expect(page.getByTestId('policy-select')).toHaveValue('gavel-las');
  await expect.poll(() => hashParam(page, 'tour')).toBe('2');
  await expect(page.getByTestId('tour-link')).toHaveAttribute('href', '#tour=2');
  await page.keyboard.press('ArrowLeft');
  await expect(page.getByTestId('tour-title')).toHaveText('Step 1 of 7: The equal split');

  // In a cell the arrow keys are the cell's.
  const cell = page.getByLabel('throughput of vision on slow', { exact: true });
  await cell.focus();
  await page.keyboard.press('ArrowRight');
  await expect(page.getByTestId('tour-title')).toHaveText('Step 1 of 7: The equal split');

  await page.getByTestId('tour-leave').click();
  await expect(page.getByTestId('tour')).toHaveCount(0);
  await expect.poll(() => hashParam(page, 'tour')).toBeUndefined();
});

test('a step link opens that step: the misreport the probe finds', async ({ page }) => {
  await openOn(page, 'tour=5');
  await expect(page.getByTestId('tour-title')).toHaveText('Step 5 of 7: A misreport');
  await expect(page.getByTestId('policy-select')).toHaveValue('oef-noncoop');
  // By hand (CLI: vision 0 slow + 2/3 fast = 4/3): reporting slow as 0 gets vision the whole
  // fast GPU, worth 2: a gain of 2/3, 50%.
  const sp = page.getByTestId('badge-SP');
  await expect(sp).toContainText('vision gains 0.6667 (50.00%; true utility 1.3333 → 2.0000)', { timeout: 20_000 });
  await expect(sp).toContainText('slow 1.000 → 0.000 (understated)');
  await page.getByTestId('tour-next').click();
  await expect(page.getByTestId('mode-compare')).toHaveAttribute('aria-pressed', 'true');
});

test('the last step opens the price of fairness on Gavel\'s measured models', async ({ page }) => {
  await openOn(page, 'tour=7');
  await expect(page.getByTestId('tour-title')).toHaveText('Step 7 of 7: The price of fairness');
  await expect(page.getByTestId('mode-frontier')).toHaveAttribute('aria-pressed', 'true');
  await expect(page.getByTestId('frontier-chart')).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId('tour-next')).toBeDisabled();
  // The text's 25.3% is the frontier's own figure (`fairground frontier`: 25.34%).
  await expect(page.getByTestId('tour-text')).toContainText('25.3%');
  await expect(page.getByTestId('frontier-chart')).toContainText('price of fairness 25.34%');
});

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
  await expect(page.getByTestId('tour-next')).toHaveCount(0);
  // The text's 25.3% is the frontier's own figure (`fairground frontier`: 25.34%).
  await expect(page.getByTestId('tour-text')).toContainText('25.3%');
  await expect(page.getByTestId('frontier-chart')).toContainText('price of fairness 25.34%');
});

// Each step opens, scrolls to and outlines what it talks about, and defines the terms it uses
// first; the last step's Finish puts the reader back where the tour found them.
const STEPS = [
  { focus: ['badge-PE'], terms: ['SI', 'EF', 'PE', 'efficiency'] },
  { focus: ['efficiency', 'badge-PE'], terms: ['LAS', 'isolated'] },
  { focus: ['badge-SP'], terms: ['OEF', 'SP'] },
  { focus: ['envy-heatmap', 'badge-EF'], terms: [] },
  { focus: ['badge-SP'], terms: ['noncoop', 'normalised'] },
  { focus: ['compare-table'], terms: ['Jain'] },
  { focus: ['frontier-chart'], terms: ['eps', 'price'] },
];

test('each step shows what it talks about and defines its new terms; Finish goes back', async ({ page }) => {
  // Where the reader is: an edited scenario, Compare all.
  await page.getByLabel('name of tenant 1').fill('mine');
  await settled(page);
  await page.getByTestId('mode-compare').click();
  await expect(page.getByTestId('compare-table')).toBeVisible({ timeout: 30_000 });
  await page.getByTestId('tour-start').click();
  for (const [k, step] of STEPS.entries()) {
    await expect(page.getByTestId('tour-title')).toHaveText(new RegExp(`^Step ${k + 1} of 7`));
    for (const id of step.focus) {
      const target = page.getByTestId(id);
      await expect(target, `step ${k + 1}: ${id} outlined`).toHaveAttribute('data-tour-focus', '', { timeout: 30_000 });
      if (await target.evaluate((el) => el.tagName === 'DETAILS')) await expect(target).toHaveAttribute('open', '');
    }
    // The first is on screen (the envy matrix is below the fold until the step scrolls to it).
    await expect(page.getByTestId(step.focus[0])).toBeInViewport({ ratio: 0.3 });
    // Only this step's targets are outlined.
    await expect(page.locator('[data-tour-focus]')).toHaveCount(step.focus.length);
    const defined = page.getByTestId('tour-terms').locator('dt');
    if (step.terms.length) {
      await expect(defined).toHaveCount(step.terms.length);
      for (const [j, id] of step.terms.entries()) await expect(defined.nth(j)).toHaveAttribute('data-term', id);
      await expect(page.getByTestId('tour-terms').locator('dd').first()).not.toBeEmpty();
    } else {
      await expect(page.getByTestId('tour-terms')).toHaveCount(0);
    }
    if (k + 1 < STEPS.length) await page.getByTestId('tour-next').click();
  }
  await page.getByTestId('tour-finish').click();
  await expect(page.getByTestId('tour')).toHaveCount(0);
  await expect(page.locator('[data-tour-focus]')).toHaveCount(0);
  await expect(page.getByTestId('mode-compare')).toHaveAttribute('aria-pressed', 'true');
  await page.getByTestId('mode-single').click();
  await expect(page.getByTestId('policy-select')).toHaveValue('oef-coop');
  await expect(page.getByLabel('name of tenant 1')).toHaveValue('mine');
});

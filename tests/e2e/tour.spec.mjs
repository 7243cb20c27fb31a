// The guided tour (issue 46): steps on the textbook case, stepped with the arrow keys outside
// editable fields, each step its own link.
import { test, expect, settled, openFresh, loadEngine } from './fixtures.mjs';

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

// Every figure and verdict a step's text states, against what the page shows and what the engine
// computes (the module's `solve` on the step's scenario): a sentence that drifts from the engine
// fails here. The PE definition's policies are checked in Compare all too.
test('every figure and verdict the tour states is what the page and the engine show', async ({ page }) => {
  await loadEngine(page);
  const textbook = {
    gpu_types: [{ name: 'slow', count: 1 }, { name: 'fast', count: 1 }],
    tenants: [{ name: 'vision', throughput: [1, 2] }, { name: 'rl', throughput: [1, 1] }],
  };
  const engine = (policy) => page.evaluate(([s, p]) => window.fairground.solve(s, p), [textbook, policy]);
  const near = (a, b, tol = 5e-4) => expect(Math.abs(a - b), `${a} vs ${b}`).toBeLessThan(tol);
  const verdicts = async (expected) => {
    for (const [id, holds] of Object.entries(expected)) {
      await expect(page.getByTestId(`badge-${id}`)).toHaveClass(holds ? /pass/ : /fail/);
    }
  };
  const text = () => page.getByTestId('tour-text').textContent();
  await page.getByTestId('tour-start').click();

  // 1. "vision's utility is 1.5 ..., rl's 1, efficiency 2.5 ... (SI and EF hold) ... open the PE
  // badge: ... adds 0.5 (20%)."
  await settled(page);
  expect(await text()).toContain("vision's utility is 1.5 (slow GPUs' worth), rl's 1, efficiency 2.5");
  let r = await engine('equal-share');
  near(r.utility[0], 1.5); near(r.utility[1], 1); near(r.efficiency, 2.5);
  await verdicts({ SI: true, EF: true, PE: false });
  await expect(page.getByTestId('badge-PE')).toContainText('adds 0.5000 (20.00%)');

  // 2. "both reach 1.143 times it, and efficiency rises to 2.857. rl still holds a seventh of the
  // fast GPU ... (PE holds)".
  await page.getByTestId('tour-next').click();
  await settled(page);
  expect(await text()).toContain('both reach 1.143 times it, and efficiency rises to 2.857');
  r = await engine('gavel-las');
  near(r.metrics.si_ratio[0], 1.143); near(r.metrics.si_ratio[1], 1.143); near(r.efficiency, 2.857);
  near(r.allocation[1][1], 1 / 7);
  await expect(page.getByTestId('efficiency')).toContainText('2.8571');
  await verdicts({ PE: true });

  // 3. "efficiency 3, the most there is. SI, EF and PE hold; SP does not: rl could gain".
  await page.getByTestId('tour-next').click();
  await settled(page);
  expect(await text()).toContain('SI, EF and PE hold; SP does not: rl could gain');
  await expect(page.getByTestId('efficiency')).toContainText('3.0000');
  await verdicts({ SI: true, EF: true, PE: true, SP: false });
  await expect(page.getByTestId('badge-SP')).toContainText('rl gains');

  // 4. "Efficiency alone reaches 3 too ... rl is left with nothing (SI fails, worst ratio 0) ...
  // rl values vision's bundle 2 more than its own."
  await page.getByTestId('tour-next').click();
  await settled(page);
  expect(await text()).toContain('rl values vision\'s bundle 2 more than its own');
  r = await engine('gavel-max-sum');
  near(r.efficiency, 3); near(r.utility[1], 0); near(r.metrics.envy.envy[1][0], 2);
  await verdicts({ SI: false, EF: false });
  await expect(page.getByTestId('badge-SI')).toContainText('rl gets 0.0000');
  await expect(page.getByTestId('badge-EF')).toContainText('rl envies vision: it values that bundle 2.0000 more');

  // 5. "both tenants get 1.333 ... vision gains 0.667 (50%) by reporting its slow-GPU throughput
  // as 0."
  await page.getByTestId('tour-next').click();
  await settled(page);
  expect(await text()).toContain('both tenants get 1.333');
  r = await engine('oef-noncoop');
  near(r.utility[0], 4 / 3); near(r.utility[1], 4 / 3);
  await expect(page.getByTestId('badge-SP')).toContainText('vision gains 0.6667 (50.00%', { timeout: 20_000 });
  await expect(page.getByTestId('badge-SP')).toContainText('slow 1.000 → 0.000');

  // 6. "Several policies (OEF, Nash welfare, Gandiva-fair, Gavel's FIFO) reach the most
  // efficiency, 3, with SI and EF; max-sum reaches it with neither." The PE definition names
  // gavel-max-sum and nash-welfare as PE: both are, here too.
  await page.getByTestId('tour-next').click();
  const table = page.getByTestId('compare-table');
  await expect(table).toBeVisible({ timeout: 30_000 });
  const row = (p) => table.locator(`tr[data-policy="${p}"]`);
  // The table's columns: policy, objective, efficiency, Jain, worst SI ratio, worst envy, SI, EF, PE.
  const cell = { si: 'td:nth-child(7)', ef: 'td:nth-child(8)', pe: 'td:nth-child(9)' };
  for (const p of ['oef-coop', 'nash-welfare', 'gandiva-fair', 'gavel-fifo']) {
    await expect(row(p).locator('td.efficiency')).toHaveText('3.0000');
    await expect(row(p).locator(cell.si)).toHaveText('✓');
    await expect(row(p).locator(cell.ef)).toHaveText('✓');
  }
  await expect(row('gavel-max-sum').locator('td.efficiency')).toHaveText('3.0000');
  await expect(row('gavel-max-sum').locator(cell.si)).toHaveText('✗');
  await expect(row('gavel-max-sum').locator(cell.ef)).toHaveText('✗');
  for (const p of ['gavel-max-sum', 'nash-welfare']) await expect(row(p).locator(cell.pe)).toHaveText('✓');
  // ... and nothing else reaches 3.
  const threes = await table.locator('tbody tr').evaluateAll((rows) => rows
    .filter((r) => r.querySelector('td.efficiency')?.textContent === '3.0000').map((r) => r.dataset.policy));
  expect(threes.sort()).toEqual(['gandiva-fair', 'gavel-fifo', 'gavel-max-sum', 'nash-welfare', 'oef-coop']);
});

// Issue 78: a speaker could not start the tour in presenter mode, a step's badge stayed closed
// there, "Leave the tour" kept the tour's scenario, Esc did nothing, and from step 4 the panel's
// words were above the window.
test('in presenter mode the tour starts by its button, opens each badge, and Esc leaves it before presenter mode', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.getByTestId('present').click();
  await expect(page.locator('main.presenting')).toHaveCount(1);
  await page.getByTestId('present-tour').click();
  await expect(page.getByTestId('tour-title')).toHaveText('Step 1 of 7: The equal split');
  const pe = page.getByTestId('badge-PE');
  await expect(pe).toHaveAttribute('data-tour-focus', '', { timeout: 30_000 });
  await expect(pe).toHaveAttribute('open', '');
  await expect(pe).toContainText('adds 0.5000 (20.00%) to efficiency');
  await expect(pe.locator('.witness')).toBeInViewport({ ratio: 0.5 });
  // The first Esc leaves the tour (the page back on its scenario and policy), not the mode.
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('tour')).toHaveCount(0);
  await expect(page.locator('main.presenting')).toHaveCount(1);
  await expect(page.getByTestId('policy-select')).toHaveValue('oef-coop');
  // T starts it again; Esc, Esc leaves both.
  await page.keyboard.press('t');
  await expect(page.getByTestId('tour-title')).toHaveText('Step 1 of 7: The equal split');
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('tour')).toHaveCount(0);
  await page.keyboard.press('Escape');
  await expect(page.locator('main.presenting')).toHaveCount(0);
});

test('leaving the tour, by its button or Esc, puts back the reader\'s scenario, view and policy', async ({ page }) => {
  await page.getByLabel('name of tenant 1').fill('mine');
  await settled(page);
  await page.getByTestId('mode-compare').click();
  await expect(page.getByTestId('compare-table')).toBeVisible({ timeout: 30_000 });
  for (const how of ['button', 'Escape']) {
    await page.getByTestId('tour-start').click();
    await expect(page.getByTestId('tour-title')).toHaveText(/^Step 1 of 7/);
    await page.getByTestId('tour-next').click();
    await expect(page.getByTestId('tour-title')).toHaveText(/^Step 2 of 7/);
    await expect(page.getByLabel('name of tenant 1')).toHaveValue('vision');
    if (how === 'button') {
      await page.getByTestId('tour-leave').click();
    } else {
      await page.locator('h1').click();
      await page.keyboard.press('Escape');
    }
    await expect(page.getByTestId('tour'), how).toHaveCount(0);
    await expect(page.getByLabel('name of tenant 1'), how).toHaveValue('mine');
    await expect(page.getByTestId('mode-compare'), how).toHaveAttribute('aria-pressed', 'true');
  }
  await page.getByTestId('mode-single').click();
  await expect(page.getByTestId('policy-select')).toHaveValue('oef-coop');
});

for (const [width, height] of [[1440, 900], [1280, 720]]) {
  test(`at ${width} x ${height} each step's words and figure are on screen together`, async ({ page }) => {
    await page.setViewportSize({ width, height });
    await page.getByTestId('tour-start').click();
    for (const [k, step] of STEPS.entries()) {
      await expect(page.getByTestId('tour-title')).toHaveText(new RegExp(`^Step ${k + 1} of 7`));
      const target = page.getByTestId(step.focus[0]);
      await expect(target).toHaveAttribute('data-tour-focus', '', { timeout: 30_000 });
      // The words: the panel's text wholly inside the window.
      await expect.poll(() => page.getByTestId('tour-text').evaluate((e) => {
        const r = e.getBoundingClientRect();
        return r.top >= 0 && r.bottom <= window.innerHeight && r.height > 0;
      }), `step ${k + 1}: the text on screen`).toBe(true);
      // The figure: as much of it above the panel as the room there allows (at least 90%).
      await expect.poll(() => page.evaluate((id) => {
        const el = document.querySelector(`[data-testid="${id}"]`).getBoundingClientRect();
        const panel = document.querySelector('[data-testid="tour"]').getBoundingClientRect();
        const shown = Math.min(el.bottom, panel.top) - Math.max(el.top, 0);
        return shown >= 0.9 * Math.min(el.height, panel.top);
      }, step.focus[0]), `step ${k + 1}: ${step.focus[0]} above the panel`).toBe(true);
      if (k + 1 < STEPS.length) await page.getByTestId('tour-next').click();
    }
  });
}

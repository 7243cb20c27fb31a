// Verdicts in context (issue 46): gains as percentages, a failed PE says whether envy-freeness
// can be kept, a failed SP names the cells misreported.
import { test, expect, settled, openFresh } from './fixtures.mjs';

test.beforeEach(async ({ page }) => {
  await openFresh(page);
});

test('the landing verdicts say what their gaps mean', async ({ page }) => {
  // oef-coop on Gavel's models: the PE improvement breaks envy-freeness (the price of EF).
  const pe = page.getByTestId('badge-PE');
  await expect(pe.getByTestId('pe-keeping-ef')).toContainText(/price of envy-freeness, (\d+\.\d\d%|<0\.01%) here/);
  await expect(pe).toContainText(/adds \d+\.\d{4} \((\d+\.\d\d%|<0\.01%)\) to efficiency/);
  // The probe's lie names the cells changed, not a whole vector.
  const sp = page.getByTestId('badge-SP');
  await expect(sp).toContainText(/gains \d+\.\d{4} \((\d+\.\d\d%|<0\.01%); true utility/, { timeout: 20_000 });
  await expect(sp).toContainText(/\d+\.\d{3} → \d+\.\d{3} \((understated|overstated)\)/);
  await expect(sp).not.toContainText('[');
});

test('an envy-free improvement is shown when one exists', async ({ page }) => {
  await page.getByTestId('preset-select').selectOption('textbook-2x2');
  await page.getByTestId('policy-select').selectOption('equal-share');
  await settled(page);
  // By hand (report.rs's test): fast to vision, slow to rl adds 0.5 of 2.5 and stays envy-free.
  const pe = page.getByTestId('badge-PE');
  await expect(pe).toContainText('adds 0.5000 (20.00%) to efficiency');
  await expect(pe.getByTestId('pe-keeping-ef')).toHaveText('Even keeping envy-freeness, an allocation adds 0.5000 (20.00%).');
});

test('a failed EF shows the envious pair side by side', async ({ page }) => {
  await page.getByTestId('preset-select').selectOption('textbook-2x2');
  await page.getByTestId('policy-select').selectOption('oef-noncoop');
  await settled(page);
  // By hand: oef-noncoop gives vision 2/3 of the fast GPU (worth 4/3 to it) and rl the slow one
  // and 1/3 of the fast (worth 1 + 2/3 = 5/3 to vision).
  const pair = page.getByTestId('badge-EF').getByTestId('envy-pair');
  await expect(pair).toContainText("vision's GPUs");
  await expect(pair).toContainText("rl's GPUs");
  await expect(pair.locator('tr').last()).toHaveText(/worth to vision per unit of weight\s*1\.3333\s*1\.6667/);
});

test('each verdict says whether the policy promises it', async ({ page }) => {
  // oef-coop's program has SI and EF as constraints; PE it does not promise (the price of EF).
  await expect(page.getByTestId('promise-EF')).toHaveText("Guaranteed: oef-coop's theory promises EF on every scenario.");
  await expect(page.getByTestId('promise-PE')).toHaveText("Not guaranteed by oef-coop's theory: PE holds or fails with the scenario.");
  // equal-share never reads the throughputs: no lie can change what anyone gets.
  await page.getByTestId('policy-select').selectOption('equal-share');
  await settled(page);
  await expect(page.getByTestId('promise-SP')).toHaveText("Guaranteed: equal-share's theory promises SP on every scenario.");
  await expect(page.getByTestId('promise-PE')).toHaveText("Not guaranteed by equal-share's theory: PE holds or fails with the scenario.");
});

test('every badge names its property in words while closed', async ({ page }) => {
  // Issue 78: PE and SP were letters only until a badge was opened.
  const words = { SI: 'sharing incentive', EF: 'envy-free', PE: 'Pareto efficient', SP: 'strategy-proof' };
  for (const [letters, name] of Object.entries(words)) {
    const summary = page.getByTestId(`badge-${letters}`).locator('summary');
    await expect(summary).toContainText(`${letters} ${name}`);
    expect(await page.getByTestId(`badge-${letters}`).evaluate((d) => d.open)).toBe(false);
  }
});

// Presenter mode and the colour scheme (issue 46): P enters and leaves, 1-9 switch policy, and
// the keys are not taken from the editor's fields.
import { test, expect, settled, openFresh } from './fixtures.mjs';

test.beforeEach(async ({ page }) => {
  await openFresh(page);
});

test('P presents the results alone, digits switch policy, and typing in a cell is left alone', async ({ page }) => {
  // A digit typed into a cell is the cell's, not a policy switch.
  const cell = page.getByLabel('throughput of A3C on v100', { exact: true });
  await cell.fill('');
  await cell.type('2');
  await settled(page);
  await expect(page.getByTestId('policy-select')).toHaveValue('oef-coop');
  await cell.blur();

  await page.keyboard.press('p');
  await expect(page.locator('main.presenting')).toHaveCount(1);
  await expect(page.getByTestId('presenting-help')).toBeVisible();
  // Everything a talk needs is fetched up front: the texts and the full engine, answering.
  await expect(page.getByTestId('presenting-ready')).toHaveText('Ready: the engine and the texts are loaded.', { timeout: 30_000 });
  await expect(page.locator('.editor')).toBeHidden();
  await expect(page.getByTestId('allocation-chart')).toBeVisible();
  // The text is larger than outside the mode.
  const size = await page.locator('main').evaluate((m) => parseFloat(getComputedStyle(m).fontSize));
  expect(size).toBeGreaterThan(18);

  await page.keyboard.press('2'); // the catalogue's second policy
  await expect(page.getByTestId('policy-select')).not.toHaveValue('oef-coop');
  const second = await page.getByTestId('policy-select').inputValue();
  await expect(page.getByTestId('efficiency')).toContainText(second, { timeout: 20_000 });

  await page.keyboard.press('Escape');
  await expect(page.locator('main.presenting')).toHaveCount(0);
  await expect(page.locator('.editor')).toBeVisible();
  await page.getByTestId('present').click();
  await expect(page.locator('main.presenting')).toHaveCount(1);
  await page.getByTestId('present').click();
  await expect(page.locator('main.presenting')).toHaveCount(0);
});

test('the colour scheme follows the system until switched', async ({ page }) => {
  const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  await page.emulateMedia({ colorScheme: 'light' });
  const light = await background();
  await page.getByTestId('scheme').click(); // light
  await page.getByTestId('scheme').click(); // dark
  await expect(page.getByTestId('scheme')).toHaveText('Colours: dark');
  expect(await background()).not.toBe(light);
  await page.getByTestId('scheme').click(); // system again
  expect(await background()).toBe(light);
});

test('a dark system gets dark colours, and the switch can make them light', async ({ page }) => {
  await page.emulateMedia({ colorScheme: 'dark' });
  const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  expect(await background()).toBe('rgb(13, 17, 23)');
  await page.getByTestId('scheme').click(); // light
  expect(await background()).toBe('rgb(255, 255, 255)');
});

// The editor works like a spreadsheet (issue 47): undo and redo for every change, a preset
// included; arrow keys and Enter move between cells; a pasted row may carry its name.
import { test, expect, openFresh, settled } from './fixtures.mjs';

test.beforeEach(async ({ page }) => openFresh(page));

const cell = (page, label) => page.getByLabel(label, { exact: true });

test('a preset, then typing, are undone and redone from the keyboard and the buttons', async ({ page }) => {
  await expect(page.getByTestId('undo')).toBeDisabled();
  await cell(page, 'throughput of A3C on k80').fill('9');
  await page.getByTestId('preset-select').selectOption('textbook-2x2');
  await expect(cell(page, 'name of tenant 1')).toHaveValue('vision');
  // Ctrl+Z with the focus in a cell is the page's undo, not the field's.
  await cell(page, 'name of tenant 1').focus();
  await page.keyboard.press('Control+z');
  await expect(cell(page, 'throughput of A3C on k80')).toHaveValue('9');
  await settled(page);
  await page.getByTestId('undo').click();
  await expect(cell(page, 'throughput of A3C on k80')).not.toHaveValue('9');
  await expect(page.getByTestId('undo')).toBeDisabled();
  await page.keyboard.press('Control+Shift+Z');
  await expect(cell(page, 'throughput of A3C on k80')).toHaveValue('9');
  await page.getByTestId('redo').click();
  await expect(cell(page, 'name of tenant 1')).toHaveValue('vision');
  await expect(page.getByTestId('redo')).toBeDisabled();
  await settled(page);
});

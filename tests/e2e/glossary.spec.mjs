// Definitions where the verdicts are, and a glossary (issue 46): their text is explain.json,
// fetched the first time one is opened.
import { test, expect, settled, openFresh } from './fixtures.mjs';

test('a badge opens on its definition, fetched once, and the glossary lists every term', async ({ page }) => {
  const fetched = [];
  page.on('request', (r) => { if (r.url().endsWith('/explain.json')) fetched.push(r.url()); });
  await openFresh(page);
  await expect(page.getByTestId('intro')).toContainText('Middleware 2024');
  expect(fetched).toHaveLength(0); // not before a definition is asked for

  // Every badge opens closed, the failed ones too: a glance under the chart, read when opened.
  await expect(page.locator('[data-testid^="badge-"][open]')).toHaveCount(0);
  const pe = page.getByTestId('badge-PE');
  await expect(pe).toHaveClass(/fail/);
  await pe.locator('summary').click();
  await pe.getByTestId('define-PE').click();
  await expect(pe.getByTestId('term-PE')).toContainText('No other allocation makes some tenant better off');
  await expect(pe.getByTestId('term-PE').locator('code')).toContainText('sum_i u_i(h_i)');
  const si = page.getByTestId('badge-SI');
  await si.locator('summary').click();
  await si.getByTestId('define-SI').click();
  await expect(si.getByTestId('term-SI')).toContainText('equal split');
  // Every badge has its definition (fetched already: no second request).
  for (const [id, words] of [['EF', 'per unit of weight'], ['SP', 'misreporting']]) {
    const badge = page.getByTestId(`badge-${id}`);
    await badge.locator('summary').click();
    await badge.getByTestId(`define-${id}`).click();
    await expect(badge.getByTestId(`term-${id}`)).toContainText(words);
  }

  await page.getByTestId('glossary-toggle').click();
  const glossary = page.getByTestId('glossary');
  for (const id of ['SI', 'EF', 'PE', 'SP', 'efficiency', 'reference', 'Jain', 'rho', 'OEF', 'price']) {
    await expect(glossary.getByTestId(`term-${id}`)).toBeVisible();
  }
  expect(fetched).toHaveLength(1);
});

test('the embedded view shows no intro', async ({ page }) => {
  await openFresh(page);
  const url = new URL(page.url());
  await page.goto(`${url.origin}${url.pathname}?embed${url.hash}`);
  await settled(page);
  await expect(page.getByTestId('allocation-chart')).toBeVisible();
  await expect(page.getByTestId('intro')).toHaveCount(0);
});

test('the intro links to the guide, served beside the page with its links rewritten', async ({ page, context }) => {
  await openFresh(page);
  const [guide] = await Promise.all([context.waitForEvent('page'), page.getByTestId('guide-link').click()]);
  await expect(guide.locator('h1')).toHaveText('The Fairground guide');
  // Its table of pages leads to the rendered pages: the glossary, made from the page's own data.
  await guide.getByRole('link', { name: 'Glossary', exact: true }).click();
  await expect(guide.locator('h2').first()).toHaveText('Sharing incentive (SI)');
  await guide.getByRole('link', { name: 'The guide', exact: true }).click();
  await guide.getByRole('link', { name: 'The guided tour', exact: true }).click();
  await expect(guide.locator('h2').first()).toHaveText('1. The equal split');
  // Back to the playground from any page.
  await guide.getByRole('link', { name: 'The playground', exact: true }).click();
  await expect(guide.getByTestId('intro')).toBeVisible();
});

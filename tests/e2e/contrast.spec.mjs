// Contrast to WCAG AA (issue 47): a pass badge's text 4.5:1 on the page, the borders of cells and
// buttons 3:1 against the page, in the light and the dark scheme. The ratio is WCAG 2's, worked
// out here from the computed colours.
import { test, expect, settled, openFresh } from './fixtures.mjs';

const ratio = (page, a, b) => page.evaluate(([a, b]) => {
  const rgb = (s) => s.match(/\d+(\.\d+)?/g).slice(0, 3).map(Number);
  const lum = (s) => {
    const [r, g, b] = rgb(s).map((v) => v / 255).map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
  return (x + 0.05) / (y + 0.05);
}, [a, b]);

const style = (locator, property) => locator.evaluate((e, p) => getComputedStyle(e)[p], property);

for (const scheme of ['light', 'dark']) {
  test(`text and control borders meet AA in the ${scheme} scheme`, async ({ page }) => {
    await page.emulateMedia({ colorScheme: scheme });
    await openFresh(page);
    await settled(page);
    const background = await style(page.locator('body'), 'backgroundColor');
    const pass = await style(page.getByTestId('badge-SI').locator('summary'), 'color');
    expect(await ratio(page, pass, background)).toBeGreaterThanOrEqual(4.5);
    const cell = await style(page.getByLabel('throughput of A3C on k80', { exact: true }), 'borderTopColor');
    expect(await ratio(page, cell, background)).toBeGreaterThanOrEqual(3);
    const button = await style(page.getByTestId('export-json'), 'borderTopColor');
    expect(await ratio(page, button, background)).toBeGreaterThanOrEqual(3);
  });
}

test('headings step down one level at a time', async ({ page }) => {
  await openFresh(page);
  // nash-welfare adds its market panel's heading to the results.
  await page.getByTestId('policy-select').selectOption('nash-welfare');
  await settled(page);
  const levels = await page.locator('h1, h2, h3, h4, h5, h6').evaluateAll((hs) => hs.map((h) => Number(h.tagName[1])));
  expect(levels[0]).toBe(1);
  expect(levels.length).toBeGreaterThan(3);
  levels.forEach((level, k) => { if (k > 0) expect(level, `heading ${k}`).toBeLessThanOrEqual(levels[k - 1] + 1); });
});

for (const scheme of ['light', 'dark']) {
  test(`the envy heat map's cells are the colours its caption names, in the ${scheme} scheme`, async ({ page }) => {
    // Issue 78: cells without envy were near-white (247, 247, 247) on a white panel, though the
    // caption says blue: they looked like holes.
    await page.emulateMedia({ colorScheme: scheme });
    await openFresh(page);
    await settled(page);
    const heatmap = page.getByTestId('envy-heatmap');
    await heatmap.scrollIntoViewIfNeeded();
    const panel = await heatmap.evaluate((svg) => {
      for (let e = svg; e; e = e.parentElement) {
        const bg = getComputedStyle(e).backgroundColor;
        if (!/rgba\(\d+, \d+, \d+, 0\)|transparent/.test(bg)) return bg;
      }
      return 'rgb(255, 255, 255)';
    });
    const fills = await heatmap.locator('rect.heat-cell:not(.envy)').evaluateAll((cells) => cells.map((c) => c.getAttribute('fill')).filter((f) => f !== '#bbbbbb'));
    // oef-coop is envy-free: every constrained pair is a cell without envy.
    expect(fills.length).toBeGreaterThan(10);
    for (const fill of fills) {
      const [r, g, b] = fill.match(/\d+/g).map(Number);
      expect(b - r, `${fill} is blue`).toBeGreaterThan(40);
      expect(await ratio(page, fill, panel), `${fill} against the panel's ${panel}`).toBeGreaterThanOrEqual(1.5);
    }
  });
}

// Presenter mode and the colour scheme (issue 46): P enters and leaves, 1-9 switch policy, and
// the keys are not taken from the editor's fields.
import { test, expect, settled, openFresh, chartTexts } from './fixtures.mjs';

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
  await expect(page.getByTestId('presenting-ready')).toHaveText('Ready.', { timeout: 30_000 });
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

// What a projector shows of the page in presenter mode: every text's size as rendered (an SVG's
// text at its font size times the SVG's scale), any text cut at its chart's edge, and where the
// first figure and the badges are.
const firstScreen = async (page) => {
  const html = await page.evaluate(() => {
    const small = [];
    const onScreen = (el) => {
      const r = el.getBoundingClientRect();
      return el.checkVisibility() && r.width > 0 && r.height > 0 && r.bottom > 0 && r.top < innerHeight;
    };
    for (const el of document.querySelectorAll('main *:not(svg, svg *)')) {
      const ownText = [...el.childNodes].some((n) => n.nodeType === Node.TEXT_NODE && n.textContent.trim());
      const size = parseFloat(getComputedStyle(el).fontSize);
      if (ownText && onScreen(el) && size < 20) small.push(`${size}px: "${el.textContent.trim().slice(0, 40)}"`);
    }
    const figure = document.querySelector('main figure.chart');
    const bottom = (el) => el && Math.round(el.getBoundingClientRect().bottom);
    return {
      small,
      figureTop: Math.round(figure.getBoundingClientRect().top),
      chartBottom: bottom(figure.querySelector('svg')),
      badgesBottom: bottom(document.querySelector('[data-testid="badges"]')),
    };
  });
  const texts = await chartTexts(page, true);
  return {
    ...html,
    small: [...html.small, ...texts.filter((t) => t.size < 20).map((t) => `${t.size.toFixed(1)}px in ${t.name}`)],
    cut: texts.filter((t) => t.cutSideways || t.cutAcross).map((t) => t.name),
  };
};

test('presenter mode fits a 1080p projector at 150% (1280 x 720 CSS px)', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.keyboard.press('p');
  await expect(page.getByTestId('presenting-ready')).toHaveText('Ready.', { timeout: 30_000 });
  // The Present button looks pressed: the chosen view's colours, not the other buttons'.
  const look = (id) => page.getByTestId(id).evaluate((b) => getComputedStyle(b).backgroundColor);
  await expect(page.getByTestId('present')).toHaveAttribute('aria-pressed', 'true');
  expect(await look('present')).toBe(await page.locator('[data-testid="tab-allocation"]').evaluate((b) => getComputedStyle(b).backgroundColor));
  expect(await look('present')).not.toBe(await look('scheme'));
  for (const view of ['single', 'compare', 'frontier']) {
    await page.getByTestId(`mode-${view}`).click();
    const chart = { single: 'allocation-chart', compare: 'compare-si', frontier: 'frontier-chart' }[view];
    await expect(page.getByTestId(chart)).toBeVisible({ timeout: 30_000 });
    await expect(page.getByTestId('solving')).toHaveText('');
    const screen = await firstScreen(page);
    expect(screen.small, `${view}: text under 20 px as rendered`).toEqual([]);
    expect(screen.cut, `${view}: text cut at a chart's edge`).toEqual([]);
    expect(screen.figureTop, `${view}: the figure starts on screen`).toBeGreaterThanOrEqual(0);
    expect(screen.chartBottom, `${view}: the figure ends on screen`).toBeLessThanOrEqual(720);
    if (view === 'single') expect(screen.badgesBottom).toBeLessThanOrEqual(720);
  }
  // Further down, one figure a screen: the envy heatmap's column names are whole.
  await page.getByTestId('mode-single').click();
  await page.getByTestId('envy-heatmap').scrollIntoViewIfNeeded();
  expect((await firstScreen(page)).cut).toEqual([]);
});

test('presenter mode with the tour open: the tour is a line at the foot, each step\'s figure whole above it', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 720 });
  // A speaker opens the tour, then presents (issue 64: the chart was wholly below the fold).
  await page.getByTestId('tour-start').click();
  await page.keyboard.press('p');
  await expect(page.getByTestId('presenting-ready')).toHaveText('Ready.', { timeout: 30_000 });
  for (let k = 1; k <= 7; k += 1) {
    await expect(page.getByTestId('tour-title')).toContainText(`Step ${k} of 7`);
    await expect(page.locator('[data-tour-focus]').first()).toBeVisible({ timeout: 30_000 });
    await expect(page.getByTestId('solving')).toHaveText('');
    // Scrolling is smooth or instant: wait until the page stops moving.
    await expect.poll(async () => {
      const a = await page.evaluate(() => scrollY);
      await page.waitForTimeout(150);
      return (await page.evaluate(() => scrollY)) === a;
    }).toBe(true);
    const bar = await page.getByTestId('tour').boundingBox();
    expect(bar.y + bar.height, `step ${k}: the tour's line at the screen's foot`).toBeGreaterThanOrEqual(719);
    expect(bar.height, `step ${k}: the tour is one line`).toBeLessThan(80);
    // What the step shows: its figure or table when it has one, else its badge, whole on screen;
    // for the first three steps the policy's figure too, with its title and badges. Measured at
    // one moment, again until it holds: beside a busy build the page can still be settling after
    // the scroll looked still (seen once: a figure 1/16 px up). The badges 35 px up, seen twice,
    // were the tour marking step 1 before P: the test below takes that order on purpose.
    const focus = page.locator('[data-tour-focus]:not(details)');
    const misplaced = async () => {
      const out = [];
      const shown = await ((await focus.count()) ? focus : page.locator('[data-tour-focus]')).first().boundingBox();
      if (shown.y < -1) out.push(`what the step shows starts ${-shown.y} px above the screen`);
      if (shown.y + shown.height > bar.y + 1) out.push('what the step shows ends below the tour\'s line');
      if (k <= 3) {
        const chart = await page.getByTestId('allocation-chart').boundingBox();
        if (chart.y + chart.height > bar.y + 1) out.push('the chart ends below the tour\'s line');
        const badges = await page.getByTestId('efficiency').boundingBox();
        if (badges.y < 0) out.push(`the efficiency badge starts ${-badges.y} px above the screen`);
      }
      return out;
    };
    await expect.poll(misplaced, { message: `step ${k}` }).toEqual([]);
    expect((await firstScreen(page)).small, `step ${k}: text under 20 px`).toEqual([]);
    if (k < 7) await page.getByTestId('tour-next').click();
  }
});

test('a tour step shown before P is pressed: the slide starts at the top, its badge\'s evidence beside the figure', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 720 });
  // The order CI's slow runs took: the tour marks step 1's badge (opened, the longer page
  // scrolled down to it) before the speaker presents. The slide then kept that scroll and cut
  // the efficiency line off the screen's top (35 px).
  await page.getByTestId('tour-start').click();
  const badge = page.getByTestId('badge-PE');
  await expect(badge).toHaveAttribute('data-tour-focus', '', { timeout: 30_000 });
  await expect(badge).toHaveAttribute('open', '');
  await expect.poll(() => page.evaluate(() => scrollY), { message: 'the page scrolled to the step' }).toBeGreaterThan(0);
  await page.keyboard.press('p');
  await expect(page.getByTestId('presenting-ready')).toHaveText('Ready.', { timeout: 30_000 });
  // Issue 78: the badge stays open, its evidence on the slide beside the figure, not above it.
  await expect(badge).toHaveAttribute('open', '');
  await expect(badge.locator('.witness')).toBeInViewport();
  await expect(badge).toContainText('adds');
  const top = async (id) => (await page.getByTestId(id).boundingBox()).y;
  await expect.poll(() => top('efficiency'), { message: 'the efficiency line on screen' }).toBeGreaterThanOrEqual(0);
  const bar = await page.getByTestId('tour').boundingBox();
  const chart = await page.getByTestId('allocation-chart').boundingBox();
  expect(chart.y + chart.height, 'the chart above the tour\'s line').toBeLessThanOrEqual(bar.y + 1);
  // Off the slide the badge is open as the tour left it.
  await page.keyboard.press('p');
  await expect(badge).toHaveAttribute('open', '');
});

// Readable charts (issue 47): on Compare all and the price of fairness, every point is named by a
// label (points at one spot share one naming them all), no two labels overlap, labels stay
// inside the chart, text is at least 12 px, and a click on a point opens its policy.
import { test, expect, openFresh, chartTexts } from './fixtures.mjs';

test.use({ viewport: { width: 1440, height: 900 } });

// For every chart matched: the policies of its points, the names its labels show, whether any
// two labels' boxes overlap or one leaves the chart, and the smallest rendered text size (px).
const readCharts = (page, selector) => page.$$eval(selector, (svgs) => svgs.map((svg) => {
  const box = svg.getBoundingClientRect();
  const scale = box.width / svg.viewBox.baseVal.width;
  const labels = [...svg.querySelectorAll('.point-label text')].map((t) => t.getBoundingClientRect());
  const overlaps = [];
  labels.forEach((a, i) => labels.slice(i + 1).forEach((b, j) => {
    if (a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5) {
      overlaps.push([i, i + 1 + j]);
    }
  }));
  const outside = labels.filter((r) => r.left < box.left - 0.5 || r.right > box.right + 0.5
    || r.top < box.top - 0.5 || r.bottom > box.bottom + 0.5).length;
  const sizes = [...svg.querySelectorAll('text')].map((t) => parseFloat(getComputedStyle(t).fontSize) * scale);
  return {
    testid: svg.dataset.testid,
    points: [...svg.querySelectorAll('circle.point')].map((c) => c.dataset.policy),
    named: [...svg.querySelectorAll('.point-label tspan[data-policy]')].map((t) => t.dataset.policy),
    overlaps,
    outside,
    smallest: Math.min(...sizes),
  };
}));

// Labels true to their points (issue 64): for every label, on screen, whether it reads as naming
// its own points. With a leader, the leader starts at one of the label's points and ends at its
// box; without one, the box is beside one of its points (within 10 units of the chart, as
// drawn) and nearer it than any other policy's point.
const labelsUntrue = (page, selector) => page.$$eval(selector, (svgs) => svgs.flatMap((svg) => {
  const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
  const centre = (c) => { const r = c.getBoundingClientRect(); return { x: r.left + r.width / 2, y: r.top + r.height / 2 }; };
  const points = [...svg.querySelectorAll('circle.point')].map((c) => ({ policy: c.dataset.policy, ...centre(c) }));
  const onScreen = (el, x, y) => {
    const p = svg.createSVGPoint();
    p.x = x; p.y = y;
    return p.matrixTransform(el.getScreenCTM());
  };
  return [...svg.querySelectorAll('.point-label')].flatMap((g) => {
    const names = [...g.querySelectorAll('tspan[data-policy]')].map((t) => t.dataset.policy);
    const box = g.querySelector('text').getBoundingClientRect();
    const gap = (p) => Math.hypot(Math.max(box.left - p.x, p.x - box.right, 0), Math.max(box.top - p.y, p.y - box.bottom, 0));
    const own = points.filter((p) => names.includes(p.policy));
    const others = points.filter((p) => !names.includes(p.policy) && own.every((o) => Math.hypot(o.x - p.x, o.y - p.y) > 1));
    const where = `${svg.dataset.testid}: ${names.join(', ')}`;
    const leader = g.querySelector('line.leader');
    if (leader) {
      const [a, b] = [['x1', 'y1'], ['x2', 'y2']].map(([x, y]) => onScreen(leader, leader[x].baseVal.value, leader[y].baseVal.value));
      // From one of its points (a group's label starts at its first point; the others are
      // within the grouping radius, 4 units), to its name.
      const fromOwn = own.some((p) => Math.hypot(p.x - a.x, p.y - a.y) < 5 * scale);
      const toBox = Math.hypot(Math.max(box.left - b.x, b.x - box.right, 0), Math.max(box.top - b.y, b.y - box.bottom, 0)) < 3;
      return fromOwn && toBox ? [] : [`${where}: its leader does not join its point to its name`];
    }
    const mine = Math.min(...own.map(gap));
    const theirs = Math.min(...others.map(gap));
    if (mine > 10 * scale + 1) return [`${where}: ${mine.toFixed(0)} px from its point, with no leader`];
    if (theirs <= mine) return [`${where}: as near another policy's point (${theirs.toFixed(0)} px) as its own (${mine.toFixed(0)} px)`];
    return [];
  });
}));

const checkLabels = (charts, minimumCharts) => {
  expect(charts.length).toBeGreaterThanOrEqual(minimumCharts);
  for (const c of charts) {
    expect(c.points.length, c.testid).toBeGreaterThan(0);
    expect([...c.named].sort(), `${c.testid}: every point named once`).toEqual([...c.points].sort());
    expect(c.overlaps, `${c.testid}: overlapping labels`).toEqual([]);
    expect(c.outside, `${c.testid}: labels outside the chart`).toBe(0);
    expect(c.smallest, `${c.testid}: smallest text (px)`).toBeGreaterThanOrEqual(12);
  }
};

for (const preset of [null, 'gavel-measured', 'textbook-2x2', 'large-random']) {
  test(`Compare all labels every point without overlaps${preset ? ` (${preset})` : ''}`, async ({ page }) => {
    await openFresh(page);
    if (preset) await page.getByTestId('preset-select').selectOption(preset);
    await page.getByTestId('mode-compare').click();
    await expect(page.getByTestId('compare-table')).toBeVisible({ timeout: 30_000 });
    await expect(page.getByTestId('solving')).toHaveText('', { timeout: 30_000 });
    checkLabels(await readCharts(page, 'svg[data-testid^="compare-"]'), 2);
    expect(await labelsUntrue(page, 'svg[data-testid^="compare-"]')).toEqual([]);
  });
}

test('the price of fairness labels every policy without overlaps', async ({ page }) => {
  await openFresh(page);
  await page.getByTestId('mode-frontier').click();
  await expect(page.getByTestId('frontier-chart')).toBeVisible({ timeout: 30_000 });
  checkLabels(await readCharts(page, 'svg[data-testid="frontier-chart"]'), 1);
  expect(await labelsUntrue(page, 'svg[data-testid="frontier-chart"]')).toEqual([]);
  // Curves that coincide are told apart: the later one dashed over the first, and named so.
  const legend = await page.locator('svg[data-testid="frontier-chart"] .legend-item text').allTextContents();
  const series = page.locator('svg[data-testid="frontier-chart"] polyline.series');
  const paths = await series.evaluateAll((ls) => ls.map((l) => [l.dataset.series, l.getAttribute('points'), l.getAttribute('stroke-dasharray')]));
  for (const [k, [name, points, dash]] of paths.entries()) {
    const earlier = paths.slice(0, k).find(([, p]) => p === points);
    if (earlier) {
      expect(dash, `${name} over ${earlier[0]}`).toBeTruthy();
      expect(legend[k]).toBe(`${name} (= ${earlier[0]})`);
    }
  }
});

test('every label of each tour step\'s chart names its own points', async ({ page }) => {
  await openFresh(page);
  for (const step of [6, 7]) {
    await page.goto('about:blank');
    await page.goto(new URL(`./#tour=${step}`, page.context()._options?.baseURL ?? process.env.FAIRGROUND_URL ?? 'http://127.0.0.1:8080/').href);
    const chart = step === 6 ? 'svg[data-testid^="compare-"]' : 'svg[data-testid="frontier-chart"]';
    await expect(page.locator(chart).first()).toBeVisible({ timeout: 30_000 });
    await expect(page.getByTestId('solving')).toHaveText('', { timeout: 30_000 });
    expect(await labelsUntrue(page, chart), `tour step ${step}`).toEqual([]);
  }
});

test('a click on a point or a name opens that policy', async ({ page }) => {
  await openFresh(page);
  await page.getByTestId('mode-compare').click();
  await expect(page.getByTestId('compare-table')).toBeVisible({ timeout: 30_000 });
  await page.locator('svg[data-testid="compare-si"] .point-label tspan[data-policy="gavel-max-sum"]').click();
  await expect(page.getByTestId('mode-single')).toHaveAttribute('aria-pressed', 'true');
  await expect(page.getByTestId('allocation-chart')).toBeVisible();
  await expect(page.getByTestId('policy-select')).toHaveValue('gavel-max-sum');
});

// Every chart has its numbers as a table behind "Table" (issue 47's text alternative), and the
// table says what the chart draws.
const tableOf = async (page, testid) => {
  const figure = page.locator('figure.chart', { has: page.getByTestId(testid) });
  await figure.getByTestId('chart-table').locator('summary').click();
  const table = figure.getByTestId('chart-table').locator('table');
  await expect(table).toBeVisible();
  return table.evaluate((t) => [...t.rows].map((r) => [...r.cells].map((c) => c.textContent)));
};

test('every chart of a policy has its numbers as a table', async ({ page }) => {
  await openFresh(page);
  await expect(page.getByTestId('allocation-chart')).toBeVisible();
  // Every chart on the page offers one.
  const charts = await page.locator('figure.chart').count();
  await expect(page.locator('figure.chart [data-testid=chart-table]')).toHaveCount(charts);
  const tenants = await page.locator('[data-testid=utility-chart] .utility-row').count();

  const allocation = await tableOf(page, 'allocation-chart');
  expect(allocation[0]).toEqual(['tenant', 'k80', 'p100', 'v100', 'all types']);
  expect(allocation.length - 1).toBe(tenants);
  for (const row of allocation.slice(1)) {
    const [k80, p100, v100, all] = row.slice(1).map(Number);
    expect(Math.abs(k80 + p100 + v100 - all)).toBeLessThan(0.002);
  }
  // In all, the table hands out no more than the 4 GPUs of each type the default scenario has.
  for (const j of [1, 2, 3]) {
    const held = allocation.slice(1).reduce((s, r) => s + Number(r[j]), 0);
    expect(held).toBeLessThanOrEqual(4 + 0.01);
  }

  const utility = await tableOf(page, 'utility-chart');
  expect(utility[0]).toEqual(['tenant', 'utility u_i', 'target u_i(e_i)', 'ratio']);
  for (const row of utility.slice(1)) {
    const [u, target, ratio] = row.slice(1).map(Number);
    expect(Math.abs(u / target - ratio)).toBeLessThan(0.001);
  }

  const envy = await tableOf(page, 'envy-heatmap');
  expect(envy.length - 1).toBe(tenants);
  envy.slice(1).forEach((row, i) => expect(row[i + 1]).toBe('own'));
});

test('the simulation charts have their numbers as tables', async ({ page }) => {
  await openFresh(page);
  await page.getByTestId('tab-simulation').click();
  await page.getByTestId('sim-run').click();
  await expect(page.locator('[data-testid=sim-table] tbody tr')).toHaveCount(3, { timeout: 60_000 });
  // By the last JCT every policy has finished all the jobs it ran: the CDF's last row is 1.
  const cdf = await tableOf(page, 'jct-cdf');
  expect(cdf[0]).toEqual(['JCT (hours)', 'fifo', 'gavel-las', 'oef-coop']);
  expect(cdf.length).toBe(12);
  expect(cdf.at(-1).slice(1)).toEqual(['1.00', '1.00', '1.00']);
  const busy = await tableOf(page, 'utilisation');
  for (const row of busy.slice(1)) {
    for (const cell of row.slice(1).filter((c) => c !== '')) {
      expect(Number(cell)).toBeGreaterThanOrEqual(0);
      expect(Number(cell)).toBeLessThanOrEqual(1);
    }
  }
  // The Gantt table lists each job that ran under the chosen policy, with its model.
  const gantt = await tableOf(page, 'gantt');
  expect(gantt[0].slice(0, 4)).toEqual(['job', 'model', 'tenant', 'GPUs']);
  const done = Number(await page.locator('[data-testid=sim-table] tr[data-policy="fifo"] td.done').textContent());
  expect(gantt.length - 1).toBe(done);
  for (const row of gantt.slice(1)) {
    expect(row[1]).not.toBe('');
    expect(Number(row[5])).toBeGreaterThan(Number(row[4]));
  }
});

test('Compare all\'s scatters are not blown up past their size on a desktop', async ({ page }) => {
  // Issue 78: 18 px text in Compare at 1440 px (a 460-unit scatter stretched to its column),
  // against about 12 px in every other chart.
  await page.setViewportSize({ width: 1440, height: 900 });
  await openFresh(page);
  await page.getByTestId('mode-compare').click();
  await expect(page.getByTestId('compare-si')).toBeVisible({ timeout: 20_000 });
  const sizes = (await chartTexts(page)).filter((t) => t.name.startsWith('compare-')).map((t) => t.size);
  expect(sizes.length).toBeGreaterThan(10);
  expect(Math.max(...sizes), `${Math.max(...sizes)} px`).toBeLessThanOrEqual(13);
  expect(Math.min(...sizes), `${Math.min(...sizes)} px`).toBeGreaterThanOrEqual(11);
});

// Entities in the playground: a user groups tenants, picks gavel-hierarchical, and sees each
// group's share split inside it; a bad tree is refused with a located message, nothing lost.
// The allocation is hand-solved in crates/fairground-core/src/policies/gavel_hierarchical.rs.
import { test, expect, settled, openFresh } from './fixtures.mjs';

const scenario = {
  gpu_types: [{ name: 'v100', count: 12 }],
  tenants: [
    { name: 'a1', throughput: [1] },
    { name: 'a2', throughput: [1] },
    { name: 'b1', throughput: [1], max_gpus: 2 },
    { name: 'b2', throughput: [1] },
    { name: 'b3', throughput: [1] },
  ],
};

// GPUs held per tenant, read from the allocation chart's per-tenant titles.
const held = async (page) => {
  const titles = await page.locator('[data-testid=allocation-chart] g.bar text.tenant-label > title').allTextContents();
  return titles.map((t) => Number(t.match(/([\d.]+) GPUs in all/)[1]));
};

test('tenants grouped into entities share by the tree under gavel-hierarchical', async ({ page }) => {
  await openFresh(page);
  await page.getByTestId('import').setInputFiles({
    name: 'groups.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(scenario)),
  });
  await expect(page.locator('[data-testid=allocation-chart] g.bar')).toHaveCount(5);
  await page.getByTestId('policy-select').selectOption('gavel-hierarchical');
  await settled(page);
  // No entities yet: water filling over tenants, b1 at its cap and 2.5 GPUs for the others.
  expect(await held(page)).toEqual([2.5, 2.5, 2, 2.5, 2.5]);

  // Two entities, A (fairness) and B (fifo), typed in as a user would.
  await page.getByTestId('add-entity').click();
  await page.getByTestId('add-entity').click();
  await page.getByLabel('name of entity 1').fill('A');
  await page.getByLabel('name of entity 2').fill('B');
  await page.getByLabel('how B shares').selectOption('fifo');
  for (const [tenant, entity] of [['a1', 'A'], ['a2', 'A'], ['b1', 'B'], ['b2', 'B'], ['b3', 'B']]) {
    await page.getByLabel(`entity of ${tenant}`).fill(entity);
  }
  await settled(page);
  // A and B get 6 GPUs each; A's go 3 and 3; B serves b1 (its cap, 2), then b2 (4), b3 none.
  await expect.poll(() => held(page)).toEqual([3, 3, 2, 4, 0]);

  // A inside B: B (fifo) now lines up A (its first tenant, a1, is listed first) before b1..b3,
  // and A, first in line, takes all 12 GPUs, 6 each.
  await page.getByLabel('parent of entity A').fill('B');
  await expect.poll(() => held(page)).toEqual([6, 6, 0, 0, 0]);
  // A cycle is refused at its place, and the last good chart stays.
  await page.getByLabel('parent of entity B').fill('A');
  const parent = page.locator('input[data-path="entities[0].parent"]');
  await expect(parent).toHaveAttribute('aria-invalid', 'true');
  await expect(page.getByTestId('problems')).toContainText("entity A's parent: the entities form a cycle (A -> B -> A)");
  expect(await held(page)).toEqual([6, 6, 0, 0, 0]);
  // Undone, the chart follows again; the typed text was never lost.
  await page.getByLabel('parent of entity B').fill('');
  await page.getByLabel('parent of entity A').fill('');
  await expect(page.getByTestId('problems')).toHaveCount(0);
  await expect.poll(() => held(page)).toEqual([3, 3, 2, 4, 0]);
  await expect(page.getByLabel('entity of b3')).toHaveValue('B');
  // A name is text, never markup.
  await page.getByLabel('name of entity 2').fill('<b>B</b>');
  await expect(page.getByTestId('problems')).toContainText("names no entity 'B'");
});

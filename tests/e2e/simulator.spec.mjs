import { test, expect, choosePolicy } from './fixtures.mjs';
import { fileURLToPath } from 'node:url';

// The data directory (docs/development.md, "Test data"): `cargo xtask test` finds or fetches it
// and exports it as $FAIRGROUND_SHARED; run alone, ../shared beside the clone.
const SHARED = process.env.FAIRGROUND_SHARED ?? fileURLToPath(new URL('../../../shared', import.meta.url));

test.beforeEach(async ({ page }) => {
  await page.goto('./');
  await expect(page.getByTestId('allocation-chart')).toBeVisible();
  await page.getByTestId('tab-simulation').click();
  await expect(page.getByTestId('simulate-tab')).toBeVisible();
});

test('runs the default workload under three policies and charts it', async ({ page }) => {
  await page.getByTestId('sim-run').click();
  const table = page.getByTestId('sim-table');
  await expect(table.locator('tbody tr')).toHaveCount(3, { timeout: 20_000 });
  for (const policy of ['fifo', 'gavel-las', 'oef-coop']) {
    // Every job finishes, except those needing more GPUs than any type has (reported).
    const row = table.locator(`tr[data-policy="${policy}"]`);
    const done = Number(await row.locator('td.done').textContent());
    const cannot = Number(await row.locator('td.unschedulable').textContent());
    expect(done + cannot).toBe(40);
    expect(done).toBeGreaterThan(30);
    expect(Number(await table.locator(`tr[data-policy="${policy}"] td.avg-jct`).textContent())).toBeGreaterThan(0);
  }
  await expect(page.locator('[data-testid=jct-cdf] polyline.series')).toHaveCount(3);
  await expect(page.locator('[data-testid=utilisation] polyline.series')).toHaveCount(3);
  expect(await page.locator('[data-testid=gantt] rect.gantt-bar').count()).toBeGreaterThan(40);
  await page.screenshot({ path: 'tests/output/simulator.png', fullPage: true });
  // The allocation tab keeps its state while the simulator has run.
  await page.getByTestId('tab-allocation').click();
  await expect(page.getByTestId('allocation-chart')).toBeVisible();
});

test('a long run shows progress and can be cancelled', async ({ page }) => {
  await page.getByTestId('sim-jobs').fill('5000');
  await page.getByTestId('sim-rate').fill('60');
  // At a laptop's size the form is longer than the screen: the progress shows beside Run, in
  // the bar at the screen's foot, from the moment it is pressed (issue 78: it was below the form).
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.getByTestId('sim-run').click();
  await expect(page.getByTestId('sim-overall')).toBeInViewport();
  await expect(page.getByTestId('sim-overall')).toContainText(/Running: \d+ of 3 policies done/);
  await expect(page.locator('[data-testid=sim-status] progress').first()).toBeAttached();
  await page.getByTestId('sim-cancel').click();
  await expect(page.getByTestId('sim-status')).toHaveText('Cancelled.', { timeout: 20_000 });
  await expect(page.getByTestId('sim-run')).toBeEnabled();
});

test('a CSV trace can be uploaded and run; bad input is explained', async ({ page }) => {
  await page.getByTestId('sim-cluster').fill('v100');
  await page.getByTestId('sim-run').click();
  await expect(page.getByTestId('sim-error')).toContainText('should be TYPE=GPUS');

  await page.getByTestId('sim-cluster').fill('v100=2,k80=2');
  const csv = 'tenant,job_type,arrival_s,total_steps,scale_factor\n' +
    'alice,A3C,0,7176,1\nbob,CycleGAN,0,4426,1\nalice,ResNet-50 (batch size 64),100,4395,2\n';
  await page.getByTestId('sim-trace').setInputFiles({ name: 'mine.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
  await expect(page.getByText('Trace: mine.csv')).toBeVisible();
  await page.getByTestId('sim-run').click();
  await expect(page.locator('[data-testid=sim-table] tbody tr')).toHaveCount(3, { timeout: 20_000 });
  await expect(page.locator('[data-testid=sim-table] tr[data-policy=fifo] td.done')).toHaveText('3');
});

// A public trace is read in the browser as by the CLI: Helios's cluster_log.csv, recognised from
// its header; the reader's report (kept and skipped lines) is shown with the results.
test('a Helios trace uploads, runs and reports the lines it skipped', async ({ page }) => {
  await page.getByTestId('sim-cluster').fill('v100=4,p100=4,k80=4');
  const log = 'job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue\n' +
    '1,u1,vcA,1,4,1,COMPLETED,2020-06-09 18:00:00,2020-06-09 18:00:00,2020-06-09 18:30:00,1800,0\n' +
    '2,u2,vcA,2,8,1,FAILED,2020-06-09 18:10:00,2020-06-09 18:10:00,2020-06-09 18:20:00,600,0\n' +
    '3,u1,vcB,0,4,1,COMPLETED,2020-06-09 18:20:00,2020-06-09 18:20:00,2020-06-09 18:40:00,1200,0\n' +
    '4,u3,vcB,4,16,1,COMPLETED,2020-06-09 18:30:00,2020-06-09 18:30:00,2020-06-09 19:30:00,3600,0\n';
  await page.getByTestId('sim-trace').setInputFiles({ name: 'cluster_log.csv', mimeType: 'text/csv', buffer: Buffer.from(log) });
  await expect(page.getByText('Trace: cluster_log.csv')).toBeVisible();
  await page.getByTestId('sim-run').click();
  const table = page.getByTestId('sim-table');
  await expect(table.locator('tbody tr')).toHaveCount(3, { timeout: 20_000 });
  await expect(table.locator('tr[data-policy=fifo] td.done')).toHaveText('3');
  const notes = page.getByTestId('sim-notes');
  await expect(notes.getByText('cluster_log.csv: 4 job lines: 3 kept')).toHaveCount(1);
  await expect(notes).toContainText('1 skipped: no GPUs');

  // A full trace is too large for the browser: the message says how to replay it natively.
  const big = log + '5,u1,vcA,1,4,1,COMPLETED,2020-06-09 19:00:00,,,60,0\n'.repeat(30_000);
  await page.getByTestId('sim-trace').setInputFiles({ name: 'big_log.csv', mimeType: 'text/csv', buffer: Buffer.from(big) });
  await expect(page.getByTestId('sim-error')).toContainText('fairground simulate --trace big_log.csv');
});

// PAI's trace is two headerless tables joined on job_name: both are chosen in one upload.
// alice's job ran 1,800 s on a P100 from 0; bob's (2 x 50% = 1 GPU) 1,200 s, submitted at 100 s,
// starts at the next 360-s round: JCTs 1,800 and 1,460 s under fifo, average 1,630 s.
test("PAI's two tables upload together and replay their durations", async ({ page }) => {
  await page.getByTestId('sim-cluster').fill('p100=4');
  const jobs = 'ja,ia,alice,Terminated,5000.0,6800.0\njb,ib,bob,Failed,5100.0,6400.0\njc,ic,carol,Running,5200.0,\n';
  const tasks = 'ja,worker,1.0,Terminated,5000.0,6800.0,600.0,10.0,100.0,P100\n' +
    'jb,worker,2.0,Failed,5200.0,6400.0,600.0,10.0,50.0,P100\n';
  await page.getByTestId('sim-trace').setInputFiles([
    { name: 'pai_task_table.csv', mimeType: 'text/csv', buffer: Buffer.from(tasks) },
    { name: 'pai_job_table.csv', mimeType: 'text/csv', buffer: Buffer.from(jobs) },
  ]);
  await expect(page.getByText('Trace: pai_task_table.csv + pai_job_table.csv')).toBeVisible();
  await page.getByTestId('sim-run').click();
  const table = page.getByTestId('sim-table');
  await expect(table.locator('tbody tr')).toHaveCount(3, { timeout: 20_000 });
  const avg = Number(await table.locator('tr[data-policy=fifo] td.avg-jct').getAttribute('data-seconds'));
  expect(avg).toBeCloseTo(1630, 3);
  await expect(page.getByTestId('sim-notes')).toContainText('1 skipped: Running or Waiting');

  // One table alone is refused with what to add.
  await page.getByTestId('sim-trace').setInputFiles({ name: 'pai_job_table.csv', mimeType: 'text/csv', buffer: Buffer.from(jobs) });
  await page.getByTestId('sim-run').click();
  await expect(page.getByTestId('sim-status')).toContainText('give both');
});

test("Synergy's set-up runs its mechanisms with CPU and memory charted and a steady-state JCT", async ({ page }) => {
  await page.getByTestId('sim-synergy-setup').click();
  await expect(page.getByTestId('sim-cluster')).toHaveValue('gpu=128');
  await page.getByTestId('sim-jobs').fill('300');
  await page.getByTestId('sim-measure').fill('100..200');
  await page.getByTestId('sim-run').click();
  const table = page.getByTestId('sim-table');
  await expect(table.locator('tbody tr')).toHaveCount(3, { timeout: 60_000 });
  for (const policy of ['synergy-proportional', 'synergy-tune', 'synergy-opt']) {
    const row = table.locator(`tr[data-policy="${policy}"]`);
    expect(Number(await row.locator('td.done').textContent())).toBeGreaterThanOrEqual(200);
    const measured = Number(await row.locator('td.measured-jct').getAttribute('data-seconds'));
    expect(measured).toBeGreaterThan(0);
    const cpu = Number(await row.locator('td.util-cpu').textContent());
    expect(cpu).toBeGreaterThan(0);
    expect(cpu).toBeLessThanOrEqual(1);
  }
  // Proportional books exactly its share: CPU and memory use follow the GPUs.
  const prop = table.locator('tr[data-policy="synergy-proportional"]');
  expect(await prop.locator('td.util-cpu').textContent()).toBe(await prop.locator('td.util-mem').textContent());
  await expect(page.locator('[data-testid=cpu-memory] polyline.series')).toHaveCount(6);
  // OPT says whether its integer program's optimum was packed onto servers every round.
  await expect(page.getByTestId('sim-notes').filter({ hasText: 'synergy-opt: all' })).toHaveCount(1);
  await page.screenshot({ path: 'tests/output/simulator-synergy.png', fullPage: true });
  const chart = page.getByTestId('cpu-memory');
  await chart.scrollIntoViewIfNeeded();
  await chart.screenshot({ path: 'tests/output/simulator-synergy-cpu-memory.png' });
});

// The hand-solved schedule of crates/fairground-sim/tests/synergy.rs, run in the page: one server
// of 2 GPUs, 6 CPUs, 125 GB; res50 (600 s at the share) and mobilenet (900 s).
// proportional: JCTs 600 and 900; greedy: 521.739 and 1102.384; Tune: 600 and 793.548.
test('a CSV of profiled models replays the hand-solved Synergy schedule', async ({ page }) => {
  await page.getByTestId('sim-cluster').fill('gpu=2');
  await page.getByTestId('sim-shape').fill('2,6,125');
  await page.getByTestId('sim-round').fill('300');
  for (const p of ['fifo', 'gavel-las', 'oef-coop']) await choosePolicy(page, p, false);
  for (const p of ['synergy-proportional', 'synergy-greedy', 'synergy-tune']) await choosePolicy(page, p);
  // Steps are iterations: 600 s / 0.78 s and 900 s / 0.71 s (the profiles' iteration times).
  const csv = 'tenant,job_type,arrival_s,total_steps,scale_factor\n' +
    `a,res50,0,${600 / 0.78},1\nb,mobilenet,0,${900 / 0.71},1\n`;
  await page.getByTestId('sim-trace').setInputFiles({ name: 'synergy.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
  await page.getByTestId('sim-run').click();
  const table = page.getByTestId('sim-table');
  await expect(table.locator('tbody tr')).toHaveCount(3, { timeout: 20_000 });
  const avg = async (policy) => Number(await table.locator(`tr[data-policy="${policy}"] td.avg-jct`).getAttribute('data-seconds'));
  expect(await avg('synergy-proportional')).toBeCloseTo((600 + 900) / 2, 3);
  expect(await avg('synergy-greedy')).toBeCloseTo((600 / 1.15 + 600 / 1.15 + 900 / 1.55) / 2, 3);
  expect(await avg('synergy-tune')).toBeCloseTo((600 + 600 + 300 / 1.55) / 2, 3);

  await page.getByTestId('sim-shape').fill('2,0,125');
  await page.getByTestId('sim-run').click();
  await expect(page.getByTestId('sim-error')).toContainText('CPUs must be > 0');
});

// The hand-solved pair of crates/fairground-sim/tests/sharing.rs, in the page: one V100; B needs
// 1060 s, A (arriving at 30 s) 1000 s; no measured slowdown in the browser, so 2x each. BSBF
// waits (B ends at 1060, A at 2060: mean JCT 1545 s); FFS shares at 60 s (both end at 2060: mean
// 2045 s), and its Gantt chart splits the shared GPU's row.
test('GPU sharing: SJF-BSBF waits where sharing would not pay, SJF-FFS shares', async ({ page }) => {
  await page.getByTestId('sim-cluster').fill('v100=1');
  await page.getByTestId('sim-round').fill('60');
  for (const p of ['fifo', 'gavel-las', 'oef-coop']) await choosePolicy(page, p, false);
  for (const p of ['sjf-ffs', 'sjf-bsbf']) await choosePolicy(page, p);
  const csv = 'id,tenant,job_type,arrival_s,total_steps,scale_factor,gpu_mem_mb,throughput.v100\n' +
    '0,b,B,0,1060,1,6000,1\n1,a,A,30,1000,1,6000,1\n';
  await page.getByTestId('sim-trace').setInputFiles({ name: 'pair.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
  await page.getByTestId('sim-run').click();
  const table = page.getByTestId('sim-table');
  await expect(table.locator('tbody tr')).toHaveCount(2, { timeout: 20_000 });
  const avg = async (policy) => Number(await table.locator(`tr[data-policy="${policy}"] td.avg-jct`).getAttribute('data-seconds'));
  expect(await avg('sjf-bsbf')).toBeCloseTo(1545, 3);
  expect(await avg('sjf-ffs')).toBeCloseTo(2045, 3);
  expect(await page.locator('[data-testid=gantt] rect.gantt-bar.shared').count()).toBeGreaterThan(0);

  await page.getByTestId('sim-gpu-memory').fill('v100=0');
  await page.getByTestId('sim-run').click();
  await expect(page.getByTestId('sim-error')).toContainText('GB must be a number > 0');
});

// The hand case of crates/fairground-sim/tests/hadar.rs in the page: an 8-GPU job (whole-job
// rates 4 / 2 / 1 steps/s, 7,200 steps) on 4+4+4 GPUs. No type has 8 GPUs, so gavel-las cannot
// run it; hadar runs it on the 4 V100s and 4 P100s: 3,600 s at the slowest worker's pace, 2,400 s
// with batches rebalanced by speed. The Gantt chart outlines the mixed placement.
test('Hadar runs a job across two GPU types, at the speed the mixed-type rule gives', async ({ page }) => {
  for (const p of ['fifo', 'oef-coop']) await choosePolicy(page, p, false);
  await choosePolicy(page, 'hadar');
  const csv = 'id,tenant,job_type,arrival_s,total_steps,scale_factor,throughput.v100,throughput.p100,throughput.k80\n' +
    '5,a,big,0,7200,8,4,2,1\n';
  await page.getByTestId('sim-trace').setInputFiles({ name: 'big.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
  await page.getByTestId('sim-run').click();
  const table = page.getByTestId('sim-table');
  await expect(table.locator('tbody tr')).toHaveCount(2, { timeout: 20_000 });
  const avg = async (policy) => Number(await table.locator(`tr[data-policy="${policy}"] td.avg-jct`).getAttribute('data-seconds'));
  expect(await avg('hadar')).toBeCloseTo(3600, 3);
  await expect(table.locator('tr[data-policy="gavel-las"] td.unschedulable')).toHaveText('1');
  const mixed = page.locator('[data-testid=gantt] rect.gantt-bar.mixed');
  // 8 GPUs, each one bar for the job's 10 rounds of 360 s in a row (merged).
  await expect(mixed).toHaveCount(8);
  await expect(mixed.first().locator('title')).toContainText('0.00 h to 1.00 h');
  await expect(mixed.first().locator('title')).toContainText('across v100+p100');

  await page.getByTestId('sim-mixed-rate').selectOption('sum');
  await page.getByTestId('sim-run').click();
  await expect.poll(() => avg('hadar'), { timeout: 20_000 }).toBeCloseTo(2400, 3);

  await page.getByTestId('sim-sync-overhead').fill('-1');
  await page.getByTestId('sim-run').click();
  await expect(page.getByTestId('sim-error')).toContainText('sync overhead');
});

// Gavel's measured file, uploaded in the page as `fairground simulate --throughputs` reads it: its
// co-located pairs let gavel-las-packed put two jobs on one GPU (the run's notes count the
// job-rounds that did); a file that is not Gavel's is refused with its name in the message.
test("Gavel's measured throughputs upload, and gavel-las-packed shares GPUs with them", async ({ page }) => {
  await page.getByTestId('sim-cluster').fill('v100=2,p100=2,k80=2');
  for (const p of ['fifo', 'gavel-las', 'oef-coop']) await choosePolicy(page, p, false);
  await choosePolicy(page, 'gavel-las-packed');
  await page.getByTestId('sim-jobs').fill('12');
  await page.getByTestId('sim-rate').fill('60');
  await page.getByTestId('sim-seed').fill('3');
  await page.getByTestId('sim-tenants').fill('2');
  await page.getByTestId('sim-throughputs').setInputFiles(`${SHARED}/data/gavel/simulation_throughputs.json`);
  await expect(page.getByTestId('sim-throughputs-name')).toContainText('simulation_throughputs.json');
  await page.getByTestId('sim-run').click();
  const table = page.getByTestId('sim-table');
  await expect(table.locator('tbody tr')).toHaveCount(1, { timeout: 20_000 });
  // Every job finishes but those needing more GPUs than a type has (reported as such).
  const row = table.locator('tr[data-policy="gavel-las-packed"]');
  const done = Number(await row.locator('td.done').textContent());
  expect(done + Number(await row.locator('td.unschedulable').textContent())).toBe(12);
  expect(done).toBeGreaterThan(6);
  const note = await page.getByTestId('sim-notes').getByText(/space sharing: \d+ of \d+/).textContent();
  expect(Number(note.match(/space sharing: (\d+) of/)[1])).toBeGreaterThan(0);

  await page.getByText('use the built-in table').click();
  await page.getByTestId('sim-throughputs').setInputFiles({ name: 'mine.json', mimeType: 'application/json', buffer: Buffer.from('{"v100": 3}') });
  await page.getByTestId('sim-run').click();
  // Read in the worker, so the message is the run's.
  await expect(page.getByTestId('sim-status')).toHaveText("mine.json: throughputs: 'v100' is not an object");
});

test('tenants as parties: the policies say who they shared among, by which rule, and what tenants received', async ({ page }) => {
  await page.getByTestId('sim-jobs').fill('30');
  await page.getByTestId('sim-tenant-mix').selectOption('skewed');
  await page.getByTestId('sim-share-among').selectOption('tenants');
  await expect(page.getByTestId('sim-within-tenant')).toHaveValue('fairness');
  await page.getByTestId('sim-within-tenant').selectOption('fifo');
  await page.getByTestId('sim-run').click();
  await expect(page.locator('[data-testid=sim-table] tbody tr')).toHaveCount(3, { timeout: 20_000 });
  const notes = page.getByTestId('sim-notes');
  await expect(notes).toContainText("oef-coop: shared among tenants (each tenant's GPUs reach its jobs by fifo");
  await expect(notes).toContainText('oef-coop: on what tenants received, SI held at');
  await expect(notes).toContainText('oef-coop: inside each tenant, fifo: its jobs in arrival order');
  await expect(notes).toContainText('gavel-las: shared among tenants');
  // fifo has no parties: it says so rather than pretending to share among tenants.
  await expect(notes).toContainText('fifo: shared among jobs: fifo orders and places jobs');
});

test('the tab at 1440 x 900: Run in view, results brought into view and announced, "can\'t run" in words, settings in the link and kept', async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await expect(page.getByTestId('sim-run')).toBeInViewport();
  // One GPU of each type: Gavel's jobs asking for 2, 4 or 8 GPUs cannot be placed.
  await page.getByTestId('sim-cluster').fill('v100=1,p100=1,k80=1');
  await page.getByTestId('sim-jobs').fill('30');
  await expect(page.getByTestId('sim-run')).toBeInViewport();
  await page.getByTestId('sim-run').click();
  await expect(page.getByTestId('sim-done')).toHaveText(/^Done: 3 policies ran\./, { timeout: 30_000 });
  await expect(page.getByTestId('sim-done')).toHaveAttribute('role', 'status');
  await expect(page.getByTestId('sim-results')).toBeInViewport({ ratio: 0.1 });
  const cannot = Number(await page.locator('[data-testid=sim-table] tr[data-policy="fifo"] td.unschedulable').textContent());
  expect(cannot).toBeGreaterThan(0);
  await expect(page.getByTestId('sim-cant-run')).toContainText(`under fifo, ${cannot} job`);
  await expect(page.getByTestId('sim-cant-run')).toContainText('more GPUs than any one GPU type');
  // Every setting is in the link, and kept for the next visit.
  await expect.poll(() => new URL(page.url()).hash).toContain('sim=');
  const link = page.url();
  await page.reload();
  await expect(page.getByTestId('simulate-tab')).toBeVisible();
  await expect(page.getByTestId('sim-jobs')).toHaveValue('30');
  await expect(page.getByTestId('sim-cluster')).toHaveValue('v100=1,p100=1,k80=1');
  // The link alone, with nothing saved (another reader), opens the same settings.
  await page.evaluate(() => localStorage.clear());
  await page.goto('about:blank');
  await page.goto(link);
  await expect(page.getByTestId('sim-jobs')).toHaveValue('30');
  await expect(page.getByTestId('sim-policy-oef-coop')).toBeChecked();
});

test('the policy families line up at one left edge', async ({ page }) => {
  // Issue 78: the families' lines were centred, with ragged indents.
  const lefts = await page.locator('.sim-family > details > summary').evaluateAll((all) => all.map((s) => Math.round(s.getBoundingClientRect().left)));
  expect(lefts.length).toBeGreaterThan(3);
  expect(new Set(lefts).size, `${lefts}`).toBe(1);
});

// The playground's download, as BENCHMARKS.md records it: gzip -9 and brotli (quality 11) of
// each file the browser fetches, summed for the first chart and for everything. Run by
// `cargo xtask test` after the release build, which fails if a sum passes its limit:
//   node tests/perf/sizes.mjs dist [--first-chart-max BYTES] [--total-max BYTES] [--module-max BYTES]
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const args = process.argv.slice(2);
const dist = args[0] ?? 'dist';
const limit = (name) => {
  const i = args.indexOf(name);
  return i < 0 ? Infinity : Number(args[i + 1]);
};

// What the page needs before its first chart: the page, its style and icon, and the playground
// (Yew with the LP policies it solves the opening scenario with). Later: the two worker scripts
// and the full engine they both import (its wasm fetched once), and the definitions (explain.json,
// fetched when one is first opened). Apart from the playground: what a
// documentation page fetches to draw one chart with the module (fairground.js and the light
// engine it loads).
const firstChart = [/^index\.html$/, /^style-.*\.css$/, /^favicon-.*\.svg$/, /^fairground-web-.*\.(js|wasm)$/];
const later = [/^(solve|sim)-worker\.js$/, /^fairground-full(_bg\.wasm|\.js)$/, /^explain\.json$/];
const modulePage = [/^fairground\.js$/, /^fairground-lite(_bg\.wasm|\.js)$/];

const rows = [];
for (const file of readdirSync(dist).sort()) {
  const phase = firstChart.some((re) => re.test(file)) ? 'first chart'
    : later.some((re) => re.test(file)) ? 'later'
      : modulePage.some((re) => re.test(file)) ? 'module page' : null;
  if (!phase) continue; // the demo pages (embed.html, module.html) are not the playground's
  const bytes = readFileSync(join(dist, file));
  rows.push({
    file, phase, raw: bytes.length,
    gzip: gzipSync(bytes, { level: 9 }).length,
    brotli: brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
  });
}
const sum = (list, key) => list.reduce((s, r) => s + r[key], 0);
const first = rows.filter((r) => r.phase === 'first chart');
const modulePageRows = rows.filter((r) => r.phase === 'module page');
const playground = rows.filter((r) => r.phase !== 'module page');
const fmt = (n) => n.toLocaleString('en-US');
console.log('| file | when | raw | gzip -9 | brotli |\n|---|---|---|---|---|');
for (const r of rows) console.log(`| ${r.file} | ${r.phase} | ${fmt(r.raw)} B | ${fmt(r.gzip)} B | ${fmt(r.brotli)} B |`);
console.log(`| **before the first chart** | | ${fmt(sum(first, 'raw'))} B | **${fmt(sum(first, 'gzip'))} B** | ${fmt(sum(first, 'brotli'))} B |`);
console.log(`| **in all** (the playground) | | ${fmt(sum(playground, 'raw'))} B | **${fmt(sum(playground, 'gzip'))} B** | ${fmt(sum(playground, 'brotli'))} B |`);
console.log(`| **a documentation page drawing one chart** | | ${fmt(sum(modulePageRows, 'raw'))} B | **${fmt(sum(modulePageRows, 'gzip'))} B** | ${fmt(sum(modulePageRows, 'brotli'))} B |`);

const failures = [];
if (!first.some((r) => r.file.endsWith('.wasm'))) failures.push(`no wasm found in ${dist}`);
if (sum(first, 'gzip') > limit('--first-chart-max')) failures.push(`before the first chart: ${fmt(sum(first, 'gzip'))} B gzip, over ${fmt(limit('--first-chart-max'))} B`);
if (sum(playground, 'gzip') > limit('--total-max')) failures.push(`in all: ${fmt(sum(playground, 'gzip'))} B gzip, over ${fmt(limit('--total-max'))} B`);
if (!modulePageRows.some((r) => r.file.endsWith('.wasm'))) failures.push(`no light engine found in ${dist}`);
if (sum(modulePageRows, 'gzip') > limit('--module-max')) failures.push(`a documentation page drawing one chart: ${fmt(sum(modulePageRows, 'gzip'))} B gzip, over ${fmt(limit('--module-max'))} B`);
for (const f of failures) console.error(`sizes: ${f}`);
process.exit(failures.length ? 1 : 0);

import { chromium } from '@playwright/test';
import { readFileSync } from 'node:fs';
const url = process.argv[2];
const b = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
const ctx = await b.newContext(); const p = await ctx.newPage();
await b.startTracing(p, { path: '/tmp/trace.json', categories: ['devtools.timeline', 'v8', 'v8.wasm', 'disabled-by-default-devtools.timeline'] });
await p.goto(url);
await p.getByTestId('allocation-chart').waitFor();
const chart = await p.evaluate(() => performance.now());
await b.stopTracing();
const ev = JSON.parse(readFileSync('/tmp/trace.json')).traceEvents;
// main renderer thread: the one with most RunTask durations
const nav = ev.find(e => e.name === 'navigationStart' || e.name === 'NavigationTiming');
const byThread = new Map();
for (const e of ev) if (e.ph === 'X' && e.dur) { const k = e.pid + ':' + e.tid; byThread.set(k, (byThread.get(k) || 0) + e.dur); }
const agg = new Map();
const t0 = Math.min(...ev.filter(e => e.name === 'ResourceSendRequest').map(e => e.ts));
for (const e of ev) if (e.ph === 'X' && e.dur > 2000 && e.ts < t0 + chart * 1000) {
  const k = `${e.name} tid${e.tid}`; const a = agg.get(k) || { n: 0, d: 0, first: 1e12 }; a.n++; a.d += e.dur / 1000; a.first = Math.min(a.first, (e.ts - t0) / 1000); agg.set(k, a);
}
console.log('chart at', Math.round(chart));
console.log([...agg.entries()].sort((a, b) => b[1].d - a[1].d).slice(0, 25).map(([k, v]) => `${v.d.toFixed(0)} ms x${v.n} first@${v.first.toFixed(0)} ${k}`).join('\n'));
await b.close();

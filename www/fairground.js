// Fairground's engine as an ES module for documentation pages (docs/embedding.md).
//
//   import init, { solve, compare, simulate, policies, renderChart } from "./fairground.js";
//   await init();
//
// `init` loads the light engine (fairground-lite.js: the LP policies; no simulator, no conic
// solver), enough for `solve`, `renderChart` and `policies`. `compare` and `simulate` return
// promises: the first call loads the full engine (fairground-full.js, the one the playground's
// workers run), later calls reuse it. The market mechanisms (`nash-welfare`,
// `partial-allocation`) need the full engine too: `await loadFullEngine()` before solving them.
// Objects in and out are the same as the CLI's JSON; errors are thrown with located messages.
import initLite, * as lite from "./fairground-lite.js";

const MARKETS = ["nash-welfare", "partial-allocation"];
let fullEngine = null; // the promise of the loaded full engine, once asked for
let full = null; // the full engine's module, once loaded

// Loads the light engine. Call (and await) it once before anything else.
export default async function init() {
  await initLite();
}

// Loads the full engine (the simulator, every policy); resolves to its module. Idempotent.
export function loadFullEngine() {
  if (!fullEngine) {
    fullEngine = import("./fairground-full.js").then(async (engine) => {
      await engine.default();
      full = engine;
      return engine;
    });
  }
  return fullEngine;
}

const policyOf = (options) =>
  typeof options === "string" ? options : (options && typeof options === "object" ? options.policy : undefined);

// A market mechanism goes to the full engine once it is loaded (the light one explains what to do
// before that); every other policy to the light engine, which answers exactly as the full one.
const engineFor = (options) => (full && MARKETS.includes(policyOf(options)) ? full : lite);

export function solve(scenario, options) {
  return engineFor(options).solve(scenario, options);
}

// The light engine draws every chart; a market mechanism's report comes from the full engine.
export function renderChart(element, scenario, options) {
  const engine = engineFor(options);
  if (engine === lite) return lite.renderChart(element, scenario, options);
  const report = engine.solve(scenario, options);
  lite.drawReport(element, report);
  return report;
}

export function policies() {
  return lite.policies();
}

export async function compare(scenario, options) {
  return (await loadFullEngine()).compare(scenario, options);
}

export async function simulate(request, options) {
  return (await loadFullEngine()).simulate(request, options);
}

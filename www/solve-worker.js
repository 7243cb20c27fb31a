// The playground's solve worker (yew-agent's oneshot side). yew-agent starts a worker with a
// classic shim: importScripts(this file), then wasm_bindgen(URL beside it). So this file defines
// that function, and it imports the full engine, fairground-full.js (dynamic import works in
// classic workers): both workers share one fairground-full_bg.wasm, fetched once.
self.wasm_bindgen = async (besideThisFile) => {
  const engine = await import(new URL("fairground-full.js", besideThisFile).href);
  await engine.default();
  engine.startSolveWorker();
};

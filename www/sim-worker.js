// The playground's simulation worker (yew-agent's reactor side). yew-agent starts a worker with a
// classic shim: importScripts(this file), then wasm_bindgen(URL beside it). So this file defines
// that function, and it imports the full engine, fairground-full.js (dynamic import works in
// classic workers): both workers share one fairground-full_bg.wasm, fetched once.
// A failure to load the engine (offline before any complete visit) is thrown from a timer, so it
// reaches the page as the worker's error event, which index.html turns into a message.
self.wasm_bindgen = async (besideThisFile) => {
  try {
    const engine = await import(new URL("fairground-full.js", besideThisFile).href);
    await engine.default();
    engine.startSimWorker();
  } catch (e) {
    setTimeout(() => {
      throw new Error(`sim-worker.js could not load the engine: ${e.message}`);
    });
  }
};

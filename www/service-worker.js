// Fairground's service worker: after one visit the playground works offline (a conference hall
// without Wi-Fi). `cargo xtask` writes dist/service-worker.js from this file, putting in the
// build's version (a hash of every file in dist/) and the list of files to keep; Trunk does not
// copy it, so `trunk serve` runs without one.
//
// - Install: every listed file (the page, both engines, the workers, explain.json, the guide,
//   the embed and module pages) goes into a cache named by the version. The page registers this
//   worker only after its first chart has painted, so these downloads never hold that chart up.
// - Fetch: a listed file comes from the cache (the files of one build always go together: the
//   page and its workers exchange messages in one format); anything else goes to the network.
//   A navigation offline to the playground's folder gets its index.html.
// - A new build: the browser sees this file's bytes change and installs the new version beside
//   the old, which keeps serving until the page asks the new one to take over (its "reload"
//   offer); the old cache is then deleted.
//
// Every URL is relative to this file, so the site works the same at `/` and at any sub-path.

const VERSION = "__FAIRGROUND_VERSION__";
const PRECACHE = __FAIRGROUND_PRECACHE__;
const CACHE = `fairground-${VERSION}`;

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches.open(CACHE).then((cache) =>
      // `no-cache`: the server confirms each file (a conditional request), so a copy the page
      // has just downloaded costs a 304 and no body, and an older copy is never kept.
      cache.addAll(PRECACHE.map((path) => new Request(path, { cache: "no-cache" }))),
    ),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) =>
        Promise.all(
          names
            .filter((name) => name.startsWith("fairground-") && name !== CACHE)
            .map((name) => caches.delete(name)),
        ),
      )
      // The page that registered this worker is served by it from now on, without a reload:
      // its later fetches (the workers, explain.json) then work offline too.
      .then(() => self.clients.claim()),
  );
});

self.addEventListener("message", (event) => {
  if (event.data === "fairground:take-over") self.skipWaiting();
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET" || !request.url.startsWith(self.registration.scope)) return;
  event.respondWith(fromCache(request));
});

async function fromCache(request) {
  const cache = await caches.open(CACHE);
  // The page's state travels in the query (?embed) and the fragment: the file is the same.
  const kept = await cache.match(request, { ignoreSearch: true });
  if (kept) return kept;
  const url = new URL(request.url);
  if (request.mode === "navigate" && url.pathname.endsWith("/")) {
    const index = await cache.match(new URL("index.html", url).href);
    if (index) return index;
  }
  return fetch(request);
}

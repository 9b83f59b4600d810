// autocut's service worker: <audio> and <video> elements cannot send the
// API key, so this worker adds it (Authorization: Bearer) to their
// requests for a job's original and rendered file, keeping the Range
// header, so that the browser streams and seeks in them; and to the
// page's downloads of the rendered file and the timelines (a hidden
// frame's navigation, which cannot send it either). The page keeps
// the key in Cache Storage (autocut-key); nothing else is intercepted.
"use strict";
const MEDIA = /^\/api\/v1\/jobs\/[^/]+\/(original|download|timelines\/[^/]+)$/;

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (e) => e.waitUntil(self.clients.claim()));

async function key() {
  const c = await caches.open("autocut-key");
  const r = await c.match("/__autocut_key");
  return r ? r.text() : "";
}

self.addEventListener("fetch", (e) => {
  const u = new URL(e.request.url);
  if (u.origin !== self.location.origin || !MEDIA.test(u.pathname) || e.request.headers.has("Authorization")) return;
  if (e.request.method !== "GET" && e.request.method !== "HEAD") return;
  e.respondWith((async () => {
    const h = new Headers({ Authorization: "Bearer " + (await key()) });
    const range = e.request.headers.get("Range");
    if (range) h.set("Range", range);
    return fetch(u.href, { method: e.request.method, headers: h, credentials: "omit", cache: "no-store", mode: "same-origin" });
  })());
});

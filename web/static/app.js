// autocut web page: talks to the v1 API with the key kept in localStorage.
// One job is followed at a time; everything drawn for it is reset when
// another is followed, and answers that arrive for a job no longer followed
// are dropped (state.token).
"use strict";
const $ = (id) => document.getElementById(id);
const JOBS = "/api/v1/jobs";
const PARAMS = ["thresholdDb", "minSilenceSec", "keepSilenceMs", "minSpeechMs"];
const VIDEO_EXT = /\.(mp4|m4v|mov|mkv|webm|avi|mts|m2ts|3gp|mxf)$/i;
const VIDEO_FORMATS = ["mp4", "mp4_hq"];
const MIN_CUT = 0.05; // seconds: the shortest cut an edge drag leaves
const EDGE_PX = 7; // how close (CSS px) the pointer must be to grab a cut's edge
const TOUCH_EDGE_PX = 22; // how close a finger must be to the selected cut's edge to drag it (a 44 px target)
const ANALYSIS_FRAME_SEC = 0.01; // the analysis's own level frame: the finest the envelope route gives
const AXIS_PX = 24; // height of the time axis under the waveform
const LANE_PX = 12; // height of the lane over the levels where the parts you kept are marked
const FLOOR_DB = -80; // bottom of the waveform's level scale

const state = {
  job: null, token: 0, timer: null, stages: [], stageTimer: null, upload: null, previewSeq: 0, previewPending: false,
  env: null, dur: 0,
  regions: [], // {start, end, reason, on}: detected cuts (on or kept), and the user's own
  detected: [], // the cuts of the current detection settings, as planned
  threshold: null, // the threshold of the current detection, dB
  base: null, // the detection settings of the job as loaded (slider strings)
  planVals: null, // the detection settings (slider strings) of the plan shown: what Apply sends, what undo restores
  previewBad: false,
  warnings: [], // the list shown (warnings())
  spp: 0, fit: true, // the view: seconds per CSS pixel; fit: the whole file in view (kept on resize)
  undo: [], sel: -1, drag: null, range: null, // range: a stretch selected by a drag, {start, end}
  media: null, listen: "before", srcKind: "", rendered: null, // rendered: the cuts of the rendered file
  blob: null, // the player's object URL when no worker streams (freed when replaced)
  seekSeq: 0, seekAt: 0, seekPlay: false, // the last seek(), which setListen keeps when it comes while a source loads
};

// ---- API -----------------------------------------------------------------

class ApiError extends Error {
  constructor(status, body) { super(`HTTP ${status}`); this.status = status; this.body = body || {}; }
}

const MESSAGES = {
  unauthorized: "That API key is missing or wrong. Check the key at the top of the page.",
  pro_plan_required: "This key has no Pro plan. The API needs a Pro key.",
  not_found: "That job no longer exists (or belongs to another key).",
  processing: "The job is still being processed; wait until it is done.",
  file_too_large: "The file is too large for this server.",
  unsupported_format: "That file is not audio or video we can read.",
  too_long: "The recording is too long: 3 hours at most.",
  nothing_to_keep: "Nothing would be left: the whole file would be cut.",
  transcription_unavailable: "Transcription is not available on this server; untick 'Cut filler words'.",
  output_expired: "The file was deleted after the retention period.",
  url_refused: "That address cannot be fetched: it must be a public web address (https://…) on a public server.",
  url_unreachable: "That address could not be downloaded.",
};

// DETAILED: codes whose server text says what MESSAGES cannot (the
// server's own limit; what would keep something), shown after it.
const DETAILED = new Set(["file_too_large", "nothing_to_keep", "url_unreachable"]);

const sentence = (t) => t.charAt(0).toUpperCase() + t.slice(1) + (/[.!?]$/.test(t) ? "" : ".");

function errorText(err) {
  if (!(err instanceof ApiError)) return `The server could not be reached (${err && err.message ? err.message : err}).`;
  const b = err.body;
  if (MESSAGES[b.code] && b.code !== "output_expired") return MESSAGES[b.code] + (DETAILED.has(b.code) && b.error ? " " + sentence(b.error) : "");
  if (b.error) return sentence(b.error);
  return `Something went wrong (HTTP ${err.status}).`;
}

// The key: what is typed in the field (saved as it is typed), else the saved one.
function key() { return $("key").value.trim() || localStorage.getItem("autocut.key") || ""; }

async function api(method, path, body) {
  const h = { Authorization: "Bearer " + key() };
  if (body !== undefined) { h["Content-Type"] = "application/json"; body = JSON.stringify(body); }
  const r = await fetch(path, { method, headers: h, body });
  const ct = r.headers.get("Content-Type") || "";
  const data = ct.includes("json") ? await r.json().catch(() => null) : null;
  if (!r.ok) throw new ApiError(r.status, data);
  return data;
}

function say(id, text, kind, keyError) {
  const el = $(id);
  el.textContent = text || "";
  el.classList.remove("good", "bad");
  if (kind) el.classList.add(kind);
  if (keyError) el.dataset.keyError = "1"; else delete el.dataset.keyError;
}

// keyFixed clears what a refused key said anywhere on the page once the
// key is typed again, and checks the new one when typing stops.
let keyTimer = null;
function keyFixed() {
  for (const el of document.querySelectorAll("[data-key-error]")) say(el.id, "");
  clearTimeout(keyTimer);
  keyTimer = setTimeout(() => { if (key()) guard("list-msg", refreshList)(); }, 700);
}

// guard runs an async action and shows its failure next to it: no
// promise of the page is ever left rejected.
function guard(msgId, fn) {
  return (...args) => Promise.resolve().then(() => fn(...args)).catch((err) => {
    if (msgId) say(msgId, errorText(err), "bad", err instanceof ApiError && err.status === 401);
    if (err instanceof ApiError && err.status === 401) keyState(false, MESSAGES.unauthorized);
  });
}

// ---- the key -------------------------------------------------------------

function keyState(ok, text) {
  $("key-sec").classList.toggle("ok", ok === true);
  say("key-msg", text, ok === true ? "good" : ok === false ? "bad" : "");
  if (ok === true) {
    const b = document.createElement("button");
    b.type = "button"; b.className = "link"; b.textContent = "change";
    b.onclick = () => { keyState(null, ""); $("key").focus(); };
    $("key-msg").append(" ", b);
  }
}

function saveKey() {
  const k = $("key").value.trim();
  if (k) localStorage.setItem("autocut.key", k); else localStorage.removeItem("autocut.key");
  shareKey();
}

async function checkKey() {
  saveKey();
  if (!key()) { keyState(false, "Type your API key first."); return; }
  try {
    await api("GET", JOBS + "?limit=1");
    keyState(true, "Key accepted.");
    guard("list-msg", refreshList)();
  } catch (err) {
    keyState(false, errorText(err));
  }
}

// ---- media playback with the key -----------------------------------------
// <audio> and <video> cannot send the Authorization header; a service worker
// (sw.js) adds it to their requests for a job's original and download, so
// that they stream with ranges. Without one (a page not served over https
// or from localhost), small files are fetched whole instead.

let worker = null;
async function startWorker() {
  if (!("serviceWorker" in navigator) || !window.isSecureContext) return false;
  try {
    await navigator.serviceWorker.register("/static/sw.js", { scope: "/" });
    await navigator.serviceWorker.ready;
    if (!navigator.serviceWorker.controller) {
      await new Promise((done) => {
        navigator.serviceWorker.addEventListener("controllerchange", done, { once: true });
        setTimeout(done, 3000);
      });
    }
    await shareKey();
    return !!navigator.serviceWorker.controller;
  } catch (_) {
    return false;
  }
}
async function shareKey() {
  if (!("caches" in window) || !window.isSecureContext) return;
  try {
    const c = await caches.open("autocut-key");
    await c.put("/__autocut_key", new Response(key()));
  } catch (_) { /* no storage: the worker then adds no key */ }
}
const FALLBACK_MAX = 300 << 20; // bytes fetched whole when no worker can stream

// head checks that url can be fetched with the key; a HEAD answer has no
// body, so a refusal is asked again with GET for the error's code and text.
async function head(url) {
  const r = await fetch(url, { method: "HEAD", headers: { Authorization: "Bearer " + key() } });
  if (!r.ok) await fetchBlob(url); // throws the ApiError with its body
  return r;
}

async function mediaURL(url) {
  if (await worker) return url;
  const r = await head(url);
  if (Number(r.headers.get("Content-Length")) > FALLBACK_MAX) throw new Error("this file is too large to play here without https");
  return URL.createObjectURL((await fetchBlob(url)).blob);
}

// Downloads need the Bearer key: fetched and handed to the browser as a blob.
async function fetchBlob(url) {
  const r = await fetch(url, { headers: { Authorization: "Bearer " + key() } });
  if (!r.ok) { let b = null; try { b = await r.json(); } catch (_) {} throw new ApiError(r.status, b); }
  return { blob: await r.blob(), name: fileName(r.headers.get("Content-Disposition") || "") };
}
// fileName reads the name of a Content-Disposition: filename*=utf-8''%XX…,
// else filename="…" (a quoted string: \ escapes) or filename=token.
function fileName(cd) {
  const ext = /filename\*=utf-8''([^;\s]+)/i.exec(cd);
  if (ext) { try { return decodeURIComponent(ext[1]); } catch (_) { /* not UTF-8: the plain name */ } }
  const q = /filename="((?:[^"\\]|\\.)*)"/i.exec(cd);
  if (q) return q[1].replace(/\\(.)/g, "$1");
  const t = /filename=([^;\s]+)/i.exec(cd);
  return t ? t[1] : "download";
}
async function download(url) {
  if (await worker) {
    // Streamed to disk: a hidden frame navigates to the file, the worker
    // adds the key (a link's download request would not pass through it),
    // and the attachment is saved. A HEAD first, so that an error is shown
    // here rather than saved.
    await head(url);
    const f = document.createElement("iframe");
    f.hidden = true; f.src = url;
    document.body.append(f);
    setTimeout(() => f.remove(), 60000);
    return;
  }
  const f = await fetchBlob(url);
  const a = document.createElement("a");
  a.href = URL.createObjectURL(f.blob); a.download = f.name; document.body.append(a); a.click(); a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 60000);
}

// ---- a new job -----------------------------------------------------------

let picked = null;
function isVideoFile(f) { return f.type.startsWith("video/") || VIDEO_EXT.test(f.name); }

function pick(file) {
  picked = file || null;
  say("new-msg", "");
  $("picked").hidden = !picked;
  if (picked) {
    $("picked-name").textContent = `${picked.name} (${humanBytes(picked.size)}, ${isVideoFile(picked) ? "video" : "audio"})`;
    $("url").value = "";
  } else {
    $("file").value = "";
  }
  fitFormats();
  updateStart();
}

// fitFormats offers the video formats only for a video file.
function fitFormats() {
  const video = !picked || isVideoFile(picked); // unknown for a URL: the server says
  const sel = $("format");
  let note = "";
  for (const o of sel.options) if (o.hasAttribute("data-video")) o.disabled = !video;
  if (!video && VIDEO_FORMATS.includes(sel.value)) {
    sel.value = "mp3";
    note = "mp4 needs a video file: mp3 chosen instead.";
  }
  say("format-note", note);
}

function updateStart() { $("start").disabled = !picked && !$("url").value.trim(); }

function options() {
  const o = { preset: $("preset").value, export: { format: $("format").value, denoise: $("denoise").checked, rumble: $("rumble").checked } };
  if ($("normalize").value) o.export.normalize = $("normalize").value;
  if ($("crosstalk").value === "cut") o.params = { crosstalk: "cut" };
  if ($("transcribe").checked) o.transcribe = true;
  if ($("language").value) o.language = $("language").value;
  if ($("tracks").value) o.tracks = $("tracks").value;
  if (!$("autoexport").checked) o.autoExport = false;
  return o;
}

// leaveEdits asks, when the open job has edits not applied, whether to
// leave it for another job (the edits stay in this browser and come back
// when it is opened again); true when there is nothing to ask or the user
// agrees.
function leaveEdits() {
  if (!state.env || !unapplied()) return true;
  return confirm(`The edits of ${state.job.input.name} are not applied. They stay saved in this browser and come back when you open it again. Leave it?`);
}

// LANGUAGES names the languages of the page's language menu.
const LANGUAGES = { en: "English", fr: "French", de: "German", es: "Spanish", it: "Italian", nl: "Dutch", pt: "Portuguese", ru: "Russian" };
const langName = (l) => LANGUAGES[l] || l;

// The language menu starts on the browser's language when it lists it.
{
  const l = (navigator.language || "").toLowerCase().split("-")[0];
  if (LANGUAGES[l]) $("language").value = l;
}

function start() {
  saveKey();
  say("new-msg", "");
  if (!key()) { say("new-msg", "Type your API key at the top of the page first.", "bad"); $("key").focus(); return; }
  if (!leaveEdits()) return;
  unfollow();
  if (picked && picked.size === 0) { say("new-msg", `${picked.name} is empty (0 bytes): pick the recording itself.`, "bad"); return; }
  if (picked) upload(picked);
  else if ($("url").value.trim()) {
    const u = $("url").value.trim(), bad = urlProblem(u);
    if (bad) { say("new-msg", bad, "bad"); return; }
    guard("new-msg", createFromURL)(u);
  }
}

// urlProblem says in words what is wrong with an address typed, before
// the server is asked.
function urlProblem(u) {
  let p;
  try { p = new URL(u); } catch (_) { p = null; }
  if (!p || !/^[a-z][a-z0-9+.-]*:\/\//i.test(u)) return `“${u}” is not a full web address: it must start with https:// (for example https://example.com/episode.mp3).`;
  if (p.protocol !== "https:" && p.protocol !== "http:") return `Only web addresses can be fetched (https:// or http://), not ${p.protocol.replace(":", "")} addresses.`;
  return "";
}

// Form B: the raw file as the body, streamed by the browser, with upload progress.
function upload(file) {
  const xhr = new XMLHttpRequest();
  xhr.open("POST", JOBS);
  xhr.setRequestHeader("Authorization", "Bearer " + key());
  xhr.setRequestHeader("X-Filename", encodeURIComponent(file.name)); // the server decodes it
  xhr.setRequestHeader("X-Options", JSON.stringify(options()));
  $("upload").hidden = false; $("start").disabled = true;
  const began = Date.now();
  lastUpload = null;
  say("upload-text", "");
  xhr.upload.onload = () => { timing.uploadEnd = Date.now(); lastUpload = { bytes: file.size, sec: (timing.uploadEnd - began) / 1000 }; };
  xhr.upload.onprogress = (e) => {
    if (!e.lengthComputable) return;
    $("upload-bar").value = (100 * e.loaded) / e.total;
    const sec = (Date.now() - began) / 1000, rate = sec > 0 ? e.loaded / sec : 0;
    let t = `${(e.loaded / 1e6).toFixed(1)} of ${(e.total / 1e6).toFixed(1)} MB`;
    if (rate > 0) t += ` · ${(rate / 1e6).toFixed(1)} MB/s · about ${clock((e.total - e.loaded) / rate, 0)} left`;
    say("upload-text", t);
  };
  xhr.onload = () => {
    $("upload").hidden = true; updateStart();
    let body = null; try { body = JSON.parse(xhr.responseText); } catch (_) {}
    if (xhr.status !== 202) {
      const err = new ApiError(xhr.status, body);
      say("new-msg", errorText(err), "bad", xhr.status === 401);
      if (xhr.status === 401) keyState(false, MESSAGES.unauthorized);
      return;
    }
    pick(null);
    follow(body);
    state.upload = lastUpload;
    stages(body);
    guard("list-msg", refreshList)();
  };
  xhr.onerror = () => { $("upload").hidden = true; updateStart(); say("new-msg", "The upload failed (network error).", "bad"); };
  xhr.send(file);
}

async function createFromURL(url) {
  $("start").disabled = true;
  try {
    const job = await api("POST", JOBS, Object.assign({ url }, options()));
    $("url").value = "";
    follow(job);
    guard("list-msg", refreshList)();
  } finally {
    updateStart();
  }
}

// ---- following a job -----------------------------------------------------

// unfollow forgets the followed job and everything drawn for it.
function unfollow() {
  state.token++;
  clearTimeout(state.timer);
  state.job = null; state.env = null; state.fine = null; state.dur = 0; state.regions = []; state.detected = [];
  state.spp = 0; state.fit = true; state.loop = null; state.undo = []; state.sel = -1; state.drag = null; state.range = null; state.previewBad = false; state.previewPending = false; state.rendered = null; state.base = null; state.planVals = null; state.planCuts = null; state.opening = false; state.applyQueued = false; state.jobSig = "";
  clearTimeout(state.stageTimer); state.stages = []; state.upload = null;
  $("stages").textContent = ""; say("job-time", "");
  if (state.media) { state.media.pause(); state.media.removeAttribute("src"); state.media.load(); }
  state.media = null; state.srcKind = "";
  freeBlob(null);
  $("media-box").textContent = "";
  $("editor").hidden = true;
  $("downloads").textContent = "";
  $("stats").textContent = "";
  clearTimeout(state.listTimer); $("cut-list").textContent = ""; delete $("cut-list").dataset.sig; $("filler-list").textContent = ""; $("fillers").hidden = true;
  for (const id of ["job-msg", "tune-msg", "edit-msg", "apply-msg", "listen-note", "levels"]) say(id, "");
  const c = $("wave"); c.getContext("2d").clearRect(0, 0, c.width, c.height); delete c.dataset.cuts; delete c.dataset.final;
  $("job").hidden = true;
}

function follow(job) {
  unfollow();
  state.job = job;
  // The job is in the address (#/jobs/ID): a reload or a shared link opens it again.
  const hash = "#/jobs/" + encodeURIComponent(job.id);
  if (location.hash !== hash) history.replaceState(null, "", hash);
  $("job").hidden = false;
  render(job);
  $("job").scrollIntoView({ block: "start", behavior: "smooth" });
  step(job, state.token, job.status === "analyzing" ? 500 : 700);
}

// step acts on the job as last read: the editor opens as soon as the plan
// is there (when the analysis ends, while the file renders), and follows
// the job's state once open; a job still busy is asked again.
function step(job, tok, wait) {
  if (job.plan && job.status !== "failed" && !state.env && !state.opening) openEditor(job, tok);
  else if (state.env) jobMoved(job);
  if (job.status !== "done" && job.status !== "failed") state.timer = setTimeout(() => poll(tok), wait);
}

async function poll(tok) {
  let job;
  try {
    job = await api("GET", `${JOBS}/${state.job.id}`);
  } catch (err) {
    if (tok !== state.token) return;
    say("job-msg", errorText(err), "bad", err instanceof ApiError && err.status === 401);
    if (err instanceof ApiError && err.status === 401) keyState(false, MESSAGES.unauthorized);
    // Asked again until answered: once the server is back, or the key typed
    // is right again (a job of another key, 404, is never answered).
    if (!(err instanceof ApiError) || err.status >= 500 || err.status === 401 || err.status === 402) state.timer = setTimeout(() => poll(tok), 3000);
    return;
  }
  if (tok !== state.token) return;
  say("job-msg", ""); // the server answers again: an earlier failure to reach it is over
  const was = state.job.status;
  state.job = job;
  render(job);
  // Asked every second; twice a second while analysing, so that the
  // editor opens within half a second of the analysis's end.
  step(job, tok, job.status === "analyzing" ? 500 : 1000);
  if (was !== job.status && (job.status === "done" || job.status === "failed")) guard("list-msg", refreshList)();
}

// FAILURES say in words why a job failed (the server's own text is the status's tooltip).
const FAILURES = {
  unsupported_format: "the file could not be decoded; it is not audio or video we can read.",
  nothing_to_keep: "nothing would be left; the whole file sounds like silence.",
  too_long: "the recording is longer than 3 hours.",
  transcription_unavailable: "filler words cannot be found on this server.",
  original_expired: "the original was deleted after 24 hours; upload it again.",
  internal: "something went wrong on the server.",
};
const STATUS = { analyzing: "Analysing…", transcribing: "Finding filler words…", rendering: "Rendering…", done: "Done", failed: "Failed" };

// lastUpload: the size and time of the last upload, shown as the job's first step.
let lastUpload = null;
const STAGE = { analyzing: "Analysis", transcribing: "Filler words", rendering: "Render" };

// stages shows the job's steps: the upload, then each phase seen (how long
// it took, or how long it has run), then those to come; with the time the
// run has taken and, from its progress, an estimate of what is left.
function stages(job) {
  const st = state.stages, last = st[st.length - 1], t = Date.now(), busy = job.status !== "done" && job.status !== "failed";
  if (!last || last.status !== job.status) {
    if (last && !last.end) {
      last.end = t;
      // Phases run between two polls are named with the one seen before them.
      const order = ["analyzing", "transcribing", "rendering", "done"], a = order.indexOf(last.status), b = order.indexOf(job.status);
      for (const x of order.slice(a + 1, b)) {
        if ((x === "transcribing" && job.transcribe) || (x === "rendering" && job.output)) last.also = (last.also || []).concat(STAGE[x].toLowerCase());
      }
    }
    // A job opened while analysing has run since its creation.
    const since = !last && job.status === "analyzing" && job.createdAt ? Math.min(t, Date.parse(job.createdAt) || t) : t;
    if (busy) st.push({ status: job.status, start: since });
  }
  const items = [];
  if (state.upload) items.push({ cls: "done", text: `Upload: ${(state.upload.bytes / 1e6).toFixed(1)} MB in ${howLong(state.upload.sec)} (${(state.upload.bytes / 1e6 / Math.max(state.upload.sec, 0.001)).toFixed(1)} MB/s)` });
  for (const s of st) {
    const el = ((s.end || t) - s.start) / 1000;
    const name = (STAGE[s.status] || s.status) + (s.also ? " and " + s.also.join(" and ") : "");
    items.push(s.end ? { cls: "done", text: `${name}: ${howLong(el)}` } : { cls: "running", text: `${STAGE[s.status] || s.status}: ${clock(el, 0)} so far` });
  }
  if (busy) {
    const order = ["analyzing", "transcribing", "rendering"], i = order.indexOf(job.status);
    const todo = order.slice(i + 1).filter((x) => (x === "transcribing" ? job.transcribe && !(job.transcript && job.transcript.status === "done") : job.autoExport || state.applyQueued));
    for (const x of todo) items.push({ cls: "todo", text: `${STAGE[x]}: next` });
  }
  $("stages").replaceChildren(...items.map((x) => { const li = document.createElement("li"); li.className = x.cls; li.textContent = x.text; return li; }));
  let time = "";
  if (busy && st.length) {
    const el = (t - st[0].start) / 1000, p = job.progress || 0;
    time = `${Math.round(p)}% · ${clock(el, 0)} elapsed`;
    if (p >= 3 && el >= 2) time += ` · about ${clock((el * (100 - p)) / p, 0)} left`;
  }
  say("job-time", time);
  clearTimeout(state.stageTimer);
  if (busy) state.stageTimer = setTimeout(() => { if (state.job) stages(state.job); }, 1000);
}

function render(job) {
  $("job-name").textContent = job.input.name;
  let s = STATUS[job.status] || job.status;
  if (job.status === "failed" && job.error) {
    s += ": " + (FAILURES[job.error.code] || job.error.message);
    if (FAILURES[job.error.code] && DETAILED.has(job.error.code) && job.error.message) s += " " + sentence(job.error.message);
  }
  $("job-status").title = job.error ? job.error.message : "";
  $("job-status").textContent = s;
  $("job-status").dataset.status = job.status;
  const busy = job.status !== "done" && job.status !== "failed";
  $("job-bar").hidden = !busy;
  $("job-bar").value = job.progress || 0;
  // The language asked for, beside the one heard.
  const heard = job.transcript && job.transcript.status === "done" && job.transcript.language;
  $("job-lang").textContent = !job.transcribe ? "" : `Speech language: ${job.language ? langName(job.language) : "not given"}` +
    (heard && heard !== job.language ? ` (heard as ${langName(heard)})` : "") + ".";
  stages(job);
  markOpen();
}

// timing: when the last upload ended and the editor of its job could be
// used (Date.now()), and the job's state then.
const timing = {};

// openEditor draws the editor of job's plan: the waveform, the cuts, the
// player on the original (After previews the cuts on it until a rendered
// file has them).
async function openEditor(job, tok) {
  state.opening = true;
  timing.planSeen = Date.now();
  const points = Math.max(500, Math.min(20000, Math.ceil(job.plan.stats.originalSec / 0.01)));
  const env = await api("GET", `${JOBS}/${job.id}/envelope?points=${points}`).catch((err) => {
    if (tok === state.token) say("job-msg", errorText(err), "bad");
    return null;
  });
  if (tok !== state.token) return;
  state.opening = false;
  if (!env) return;
  timing.envelope = Date.now();
  state.env = env; state.fine = null;
  state.dur = job.plan.stats.originalSec;
  state.rendered = job.output ? job.plan.cuts.map((c) => ({ start: c.start, end: c.end })) : null;
  state.planCuts = job.plan.cuts.map((c) => ({ start: c.start, end: c.end }));
  state.base = {};
  for (const p of PARAMS) {
    setSlider(p, p === "thresholdDb" ? (job.params.thresholdDb ?? job.plan.thresholdDb) : job.params[p]);
    state.base[p] = $(p).value;
  }
  state.planVals = Object.assign({}, state.base);
  setDetected(job.plan);
  state.regions = state.detected.map((c) => Object.assign({}, c));
  warnings(job.warnings);
  const back = restoreEdit(job);
  $("editor").hidden = false;
  levels(env);
  buildPlayer(job);
  $("wave-scroll").scrollLeft = 0;
  layout();
  changed();
  if (back) say("edit-msg", "Your edits not applied yet are back (kept in this browser until you apply them).");
  jobMoved(state.job);
  timing.editable = Date.now(); timing.id = job.id; timing.status = state.job.status;
}

// jobMoved follows the job's state in an open editor: the plan the server
// has (what the edit is compared with), the rendered file once there; a
// render asked while another ran starts when it ends, a download waiting
// for its render starts.
function jobMoved(job) {
  // Redrawn only when the job's state, file or plan moved: a poll that
  // finds nothing new leaves the buttons (and the keyboard focus) alone.
  const sig = `${job.status}|${job.output ? job.output.name + job.output.duration : ""}|${job.plan ? planSig(job.plan) : ""}`;
  if (sig === state.jobSig) return;
  state.jobSig = sig;
  if (job.plan) state.planCuts = job.plan.cuts.map((c) => ({ start: c.start, end: c.end }));
  state.rendered = job.output && job.plan ? job.plan.cuts.map((c) => ({ start: c.start, end: c.end })) : null;
  changed();
  if (job.status !== "done") return;
  if (state.applyQueued) { state.applyQueued = false; guard("apply-msg", apply)(); return; }
  downloadPending(job);
}

// ---- the edit: regions, stats, undo --------------------------------------

function setDetected(plan) {
  state.detected = plan.cuts.map((c) => ({ start: c.start, end: c.end, reason: c.reason, on: true }));
  state.threshold = plan.thresholdDb;
}

// cuts is the cut list the edit makes: the regions that are on, sorted,
// overlapping ones merged. Touching ones stay apart, as the plan has them
// (a silence next to a short sound): the same list compares equal to it.
function cuts() {
  const out = [];
  for (const r of state.regions.filter((r) => r.on).sort((a, b) => a.start - b.start)) {
    const last = out[out.length - 1];
    if (last && r.start < last.end - 1e-9) last.end = Math.max(last.end, r.end);
    else out.push({ start: r.start, end: r.end });
  }
  return out;
}
const sameCuts = (a, b) => a.length === b.length && a.every((c, i) => Math.abs(c.start - b[i].start) < 5e-4 && Math.abs(c.end - b[i].end) < 5e-4);
const sliderVals = () => Object.fromEntries(PARAMS.map((p) => [p, $(p).value]));
// moved are the settings of vals that differ from the job's own: only
// those are sent (an automatic threshold stays automatic).
function moved(vals) {
  const o = {};
  for (const p of PARAMS) if (state.base && vals && vals[p] !== state.base[p]) o[p] = Number(vals[p]);
  return o;
}
// changedParams are those of the plan shown (not of sliders whose preview
// has not arrived): what Apply sends.
const changedParams = () => moved(state.planVals);
// unapplied: the edit shown is not the job's plan (cuts or settings).
const unapplied = () => !!state.job && !!state.planCuts && (!sameCuts(cuts(), state.planCuts) || Object.keys(changedParams()).length > 0);

function snapshot() {
  state.undo.push({ regions: state.regions.map((r) => Object.assign({}, r)), detected: state.detected, threshold: state.threshold,
    planVals: state.planVals, previewBad: state.previewBad, warnings: state.warnings });
  if (state.undo.length > 200) state.undo.shift();
}
function undo() {
  const s = state.undo.pop();
  if (!s) return;
  // A preview on its way is dropped: the settings go back with the cuts.
  clearTimeout(previewTimer); state.previewSeq++; state.previewPending = false;
  state.regions = s.regions; state.detected = s.detected; state.threshold = s.threshold; state.previewBad = s.previewBad;
  state.planVals = s.planVals; state.range = null;
  for (const p of PARAMS) setSlider(p, s.planVals[p]);
  warnings(s.warnings);
  state.sel = -1;
  say("edit-msg", "Undone.");
  say("tune-msg", "");
  changed();
}

// changed redraws what depends on the edit: waveform, stats, cut list,
// Apply, and the After button's meaning.
function changed() {
  const c = cuts(), cut = c.reduce((s, x) => s + x.end - x.start, 0), dur = state.dur;
  const wave = $("wave");
  wave.dataset.cuts = String(c.length);
  wave.dataset.final = (dur - cut).toFixed(3);
  stats([["Original", clock(dur)], ["Final", state.previewBad ? "—" : clock(dur - cut)],
    ["Saved", state.previewBad ? "—" : `${clock(cut)} (${dur > 0 ? ((100 * cut) / dur).toFixed(1) : "0.0"}%)`], ["Cuts", state.previewBad ? "—" : String(c.length)]]);
  $("cuts-box").hidden = state.previewBad;
  // The list of every cut (hundreds on a long file) is built at once only
  // while it is open; closed, just after the waveform is drawn.
  clearTimeout(state.listTimer);
  if ($("cuts-box").open) keepFocus("#cut-list", cutList);
  else state.listTimer = setTimeout(cutList, 0);
  $("undo").disabled = state.undo.length === 0;
  const nothing = dur - cut < 0.05;
  const busy = state.job.status !== "done" && state.job.status !== "failed";
  const same = !unapplied() && (!!state.job.output || busy);
  $("apply").disabled = state.previewBad || state.previewPending || nothing || same || state.applyQueued;
  if (state.previewPending) say("apply-msg", "Previewing the new settings…");
  else if (nothing && !state.previewBad) say("apply-msg", "Nothing would be left: keep at least one part.", "bad");
  else if (same) say("apply-msg", busy ? "The file being rendered has these cuts." : "The rendered file has these cuts.", "good");
  else if (state.applyQueued) say("apply-msg", "Your edit renders as soon as the current render ends.");
  else if (!state.previewBad) say("apply-msg", busy ? "Apply renders the file with these cuts (after the current render)." : "Apply renders the file with these cuts.");
  else say("apply-msg", "");
  listenNote();
  keepFocus("#sel-bar", selBar);
  keepFocus("#filler-list", fillers);
  keepFocus("#downloads", () => downloads(state.job));
  saveEdit();
  draw();
}

// keepFocus runs fn, which rebuilds the buttons of the box sel; a button
// of it that had the keyboard focus hands it to its new self (the same
// action, or the one at its place), so that a keyboard user stays there.
function keepFocus(sel, fn) {
  const a = document.activeElement, box = document.querySelector(sel);
  const had = a && box && box.contains(a) && a.tagName === "BUTTON";
  const key = had ? { act: a.dataset.act, kind: a.dataset.kind, i: [...box.querySelectorAll("button")].indexOf(a) } : null;
  fn();
  if (!key || box.contains(document.activeElement)) return;
  const all = [...box.querySelectorAll("button")];
  const b = (key.kind && all.find((x) => x.dataset.kind === key.kind)) || (key.act && key.act !== "filler" && all.find((x) => x.dataset.act === key.act)) || all[Math.min(key.i, all.length - 1)];
  if (b && !b.disabled) b.focus();
}

// ---- edits kept in the browser until applied -----------------------------
// An edit not applied yet is saved in localStorage (autocut.edit.ID) as
// it is made, with the plan it was made on: a reload, or the job opened
// again, brings it back while the job's plan is still that one.

function planSig(plan) {
  let h = 2166136261; // FNV-1a over the plan's cuts
  const str = plan.cuts.map((c) => c.start.toFixed(4) + "-" + c.end.toFixed(4)).join(",");
  for (let i = 0; i < str.length; i++) { h ^= str.charCodeAt(i); h = Math.imul(h, 16777619) >>> 0; }
  return `${plan.cuts.length}:${h.toString(16)}`;
}
const editKey = (id) => "autocut.edit." + id;
function forgetEdit(id) { try { localStorage.removeItem(editKey(id)); } catch (_) { /* no storage */ } }

function saveEdit() {
  const j = state.job;
  if (!j || !j.plan || !state.env) return;
  try {
    if (!unapplied()) { localStorage.removeItem(editKey(j.id)); return; }
    localStorage.setItem(editKey(j.id), JSON.stringify({ plan: planSig(j.plan), regions: state.regions, detected: state.detected,
      threshold: state.threshold, planVals: state.planVals, previewBad: state.previewBad, warnings: state.warnings }));
  } catch (_) { /* storage full or off: the edit stays on this page only */ }
}

// restoreEdit brings back the saved edit of job, if made on its plan.
function restoreEdit(job) {
  let e = null;
  try { e = JSON.parse(localStorage.getItem(editKey(job.id)) || "null"); } catch (_) { e = null; }
  if (!e || e.plan !== planSig(job.plan) || !Array.isArray(e.regions) || !e.planVals) return false;
  state.regions = e.regions; state.detected = e.detected || state.detected; state.threshold = e.threshold ?? state.threshold;
  state.planVals = e.planVals; state.previewBad = !!e.previewBad;
  for (const p of PARAMS) if (e.planVals[p] !== undefined) setSlider(p, e.planVals[p]);
  warnings(e.warnings || state.warnings);
  return true;
}

function stats(rows) {
  const dl = $("stats");
  dl.textContent = "";
  for (const [k, v] of rows) {
    const d = document.createElement("div");
    const dt = document.createElement("dt"); dt.textContent = k;
    const dd = document.createElement("dd"); dd.textContent = v; dd.id = "stat-" + k.toLowerCase();
    d.append(dt, dd); dl.append(d);
  }
}

function cutList() {
  // Built again only when a cut moved, came or went (a 30-minute file has
  // hundreds, and changed() runs on every poll that moves the job).
  const sig = state.regions.map((r) => `${r.start},${r.end},${r.on},${r.reason}`).join(";");
  const ol = $("cut-list");
  if (ol.dataset.sig === sig) return;
  ol.dataset.sig = sig;
  ol.textContent = "";
  $("cuts-count").textContent = String(state.regions.length);
  state.regions.forEach((r, i) => {
    const li = document.createElement("li");
    li.className = r.on ? "on" : "off";
    li.dataset.start = r.start.toFixed(3); li.dataset.end = r.end.toFixed(3);
    li.append(`${span(r.start, r.end)} ${reasonWord(r.reason)}${r.on ? "" : ", kept by you"}`);
    const b = document.createElement("button");
    b.type = "button"; b.className = "secondary"; b.textContent = r.on ? "Keep" : "Cut";
    b.setAttribute("aria-label", `${r.on ? "Keep" : "Cut"} ${clock(r.start)} to ${clock(r.end)}`);
    b.onclick = () => toggle(i);
    const go = document.createElement("button");
    go.type = "button"; go.className = "secondary"; go.textContent = "Listen";
    go.setAttribute("aria-label", `Listen from ${clock(r.start)}`);
    go.onclick = () => { state.sel = i; seek(Math.max(0, r.start - 1), true); };
    li.append(b, go);
    ol.append(li);
  });
}
const reasonWord = (r) => ({ silence: "silence", noise: "noise without speech", filler: "filler word", "short-speech": "short sound", manual: "your cut" }[r] || r);

function toggle(i) {
  const r = state.regions[i];
  if (!r) return;
  snapshot();
  r.on = !r.on;
  state.sel = i; state.range = null;
  say("edit-msg", `${r.on ? "Cut" : "Kept"} ${span(r.start, r.end)}.`);
  changed();
}

function regionAt(t) { return state.regions.findIndex((r) => t >= r.start && t < r.end); }

// ---- detection settings (preview) ----------------------------------------

function setSlider(p, v) {
  $(p).value = v;
  const o = $(p).nextElementSibling;
  o.textContent = `${$(p).value} ${o.dataset.unit}`;
}

let previewTimer = null;
// Previews are numbered: only the answer to the latest one is drawn, so an
// answer that arrives late (a slow request overtaken by a newer one) never
// replaces the newer plan or the edits made on it.
function preview() {
  clearTimeout(previewTimer);
  const tok = state.token, seq = ++state.previewSeq;
  const wasPending = state.previewPending;
  state.previewPending = true;
  if (!wasPending) changed(); // Apply waits for the plan of these settings
  previewTimer = setTimeout(async () => {
    const vals = sliderVals(), q = new URLSearchParams();
    for (const [p, v] of Object.entries(moved(vals))) q.set(p, String(v));
    try {
      const r = await api("GET", `${JOBS}/${state.job.id}/preview?${q}`);
      if (tok !== state.token || seq !== state.previewSeq) return;
      state.previewPending = false;
      snapshot();
      state.planVals = vals;
      setDetected(r); // the plan, with its warnings
      warnings(r.warnings);
      state.regions = state.detected.map((c) => Object.assign({}, c));
      state.previewBad = false; state.sel = -1;
      say("tune-msg", "");
      changed();
    } catch (err) {
      if (tok !== state.token || seq !== state.previewSeq) return;
      state.previewPending = false;
      snapshot();
      state.planVals = vals;
      state.previewBad = true;
      // Settings that would cut everything find pauses enough: the list
      // keeps what it says about the input, not that no pause was found.
      if (err instanceof ApiError && err.body && err.body.code === "nothing_to_keep") {
        warnings(state.warnings.filter((w) => !w.startsWith("no pauses found")));
      }
      say("tune-msg", errorText(err), "bad");
      changed();
    }
  }, 80);
}

async function apply() {
  say("apply-msg", "");
  if (state.job.status !== "done" && state.job.status !== "failed") { state.applyQueued = true; changed(); return; } // the server renders one at a time
  const body = { action: "export" };
  const params = changedParams();
  if (Object.keys(params).length) body.params = params;
  // The cuts shown, always: the render is what the page shows, whatever
  // the detection of these settings would make.
  body.cuts = cuts();
  const job = await api("PATCH", `${JOBS}/${state.job.id}`, body);
  forgetEdit(job.id);
  follow(job);
}

// ---- levels and fillers in words -----------------------------------------

// warnings lists what the analysis found odd about the input (no speech, a
// channel in opposite polarity, a truncated file, no pause to cut), as it
// holds for the plan shown: the job's, then each preview's.
function warnings(list) {
  state.warnings = list || [];
  $("warnings").replaceChildren(...state.warnings.map((w) => {
    const li = document.createElement("li");
    li.textContent = w;
    return li;
  }));
}

function levels(env) {
  const noise = env.noiseFloorDb, speech = env.speechLevelDb, gap = speech - noise;
  const bg = noise < -60 ? "very quiet" : noise < -50 ? "quiet" : noise < -40 ? "noticeable" : "loud";
  const sp = speech > -10 ? "very loud (it may be clipped)" : speech > -30 ? "a good level" : speech > -40 ? "quiet" : "very quiet";
  const easy = gap >= 25 ? "pauses are easy to tell from speech" : gap >= 15 ? "pauses can be told from speech" : "pauses are hard to tell from speech: check the cuts";
  $("levels").textContent = `Background noise is ${bg} (${noise.toFixed(0)} dB); speech is at ${sp} (${speech.toFixed(0)} dB), ${gap.toFixed(0)} dB above it: ${easy}.`;
}

// fillers lists the filler words found, each to be judged before it is
// cut: the words around it, how sure the recogniser was, whether it is
// cut, kept by you, or only suggested (found, not in the cuts), and a
// button that cuts or keeps it; Listen plays from a second before.
const UNSURE = 0.6; // a filler found with less confidence is marked unsure

function fillers() {
  const t = state.job && state.job.transcript;
  const ul = $("filler-list");
  ul.textContent = "";
  if (!t || !t.fillers) { $("fillers").hidden = true; return; }
  $("fillers").hidden = false;
  const lang = t.language ? `Language: ${langName(t.language)}${t.engine ? ` (heard by ${t.engine})` : ""}. ` : "";
  const auto = t.status !== "done" || !t.engine || t.fillers.length === 0 ? "" : t.autoCutConfidence != null
    ? ` Those ${Math.round(t.autoCutConfidence * 100)}% sure or more are cut; the others are suggestions.`
    : ` ${t.engine} is not sure enough of any to cut it by itself: each is a suggestion, cut only if you press Cut.`;
  const none = t.status === "done" && !t.engine && t.warning; // no engine hears the language
  say("fillers-note", t.status && t.status !== "done" ? `${lang}Transcription ${t.status}…` : none ? `${lang}No filler looked for.` : `${lang}${t.fillers.length} found.${auto}`);
  say("fillers-warning", t.warning ? sentence(t.warning) : "");
  if (t.fillers.length === 0) { const li = document.createElement("li"); li.textContent = t.warning && !t.engine ? "None looked for." : "None found."; ul.append(li); return; }
  const words = (t.words || []).slice().sort((a, b) => a.start - b.start);
  for (const f of t.fillers) {
    const li = document.createElement("li");
    li.append(`“${f.word}” at ${clock(f.start)}`);
    // the words around it
    const before = words.filter((w) => w.end <= f.start + 0.01).slice(-4).map((w) => w.word);
    const after = words.filter((w) => w.start >= f.end - 0.01).slice(0, 4).map((w) => w.word);
    const ctx = document.createElement("span");
    ctx.className = "ctx";
    const mark = document.createElement("mark");
    mark.textContent = f.word;
    ctx.append(`${before.length ? "…" + before.join(" ") + " " : ""}`, mark, `${after.length ? " " + after.join(" ") + "…" : ""}`);
    const i = state.regions.findIndex((r) => r.start <= f.start + 0.02 && r.end >= f.end - 0.02);
    const r = state.regions[i];
    const st = !r ? "suggested" : r.on ? "cut" : "kept";
    const conf = document.createElement("span");
    conf.className = "conf";
    const sure = f.confidence > 0 ? `${Math.round(f.confidence * 100)}% sure` : "confidence unknown";
    conf.textContent = `${f.confidence > 0 && f.confidence < UNSURE ? "unsure, " : ""}${sure} · ${st === "cut" ? "cut" : st === "kept" ? "kept by you" : "suggested, not cut"}`;
    li.dataset.state = st;
    if (f.confidence > 0 && f.confidence < UNSURE) li.classList.add("unsure");
    const tg = document.createElement("button");
    tg.type = "button"; tg.className = "secondary"; tg.dataset.act = "filler";
    tg.textContent = st === "cut" ? "Keep" : "Cut";
    tg.setAttribute("aria-label", `${tg.textContent} “${f.word}” at ${clock(f.start)}`);
    tg.onclick = () => {
      if (st === "suggested") cutRange(f.start, f.end);
      else if (st === "kept" || r.reason === "filler") toggle(i);
      else keepRange(f.start, f.end);
    };
    const b = document.createElement("button");
    b.type = "button"; b.className = "secondary"; b.textContent = "Listen";
    b.setAttribute("aria-label", `Listen to ${f.word} at ${clock(f.start)}`);
    b.onclick = () => seek(Math.max(0, f.start - 1), true);
    li.append(" ", ctx, " ", conf, tg, b); ul.append(li);
  }
}

// ---- before / after playback ---------------------------------------------

function buildPlayer(job) {
  const video = job.input.type === "video";
  const m = document.createElement(video ? "video" : "audio");
  m.controls = true; m.preload = "metadata"; m.playsInline = true; m.id = "player";
  m.defaultPlaybackRate = m.playbackRate = Number($("rate").value) || 1;
  m.onloadedmetadata = () => { m.playbackRate = Number($("rate").value) || 1; };
  m.onplay = () => { $("play").textContent = "Pause"; tick(); };
  m.onpause = () => { $("play").textContent = "Play"; draw(); };
  m.ontimeupdate = () => { if (m.paused) draw(); };
  m.onerror = () => say("listen-note", "This browser cannot play the file here; download it instead.", "bad");
  $("media-box").append(m);
  state.media = m;
  setListen("before", 0);
}

// Original time <-> time in the rendered file (the rendered plan's cuts).
function toRendered(t) {
  let r = t;
  for (const c of state.rendered || []) {
    if (c.start >= t) break;
    r -= Math.min(t, c.end) - c.start;
  }
  return r;
}
function fromRendered(r) {
  let t = r;
  for (const c of state.rendered || []) {
    if (c.start > t + 1e-6) break;
    t += c.end - c.start;
  }
  return t;
}
// afterIsFile: After plays the rendered file (its cuts are the edit's);
// otherwise After plays the original and skips the edit's cuts.
const afterIsFile = () => state.job && state.job.output && state.rendered && sameCuts(cuts(), state.rendered);

function now() {
  const m = state.media;
  if (!m) return 0;
  return state.srcKind === "output" ? fromRendered(m.currentTime) : m.currentTime;
}

async function setListen(mode, at) {
  state.listen = mode;
  $("listen-before").setAttribute("aria-checked", String(mode === "before"));
  $("listen-after").setAttribute("aria-checked", String(mode === "after"));
  // One stop in the tab order for the group: the chosen one.
  $("listen-before").tabIndex = mode === "before" ? 0 : -1;
  $("listen-after").tabIndex = mode === "after" ? 0 : -1;
  const m = state.media;
  if (!m) return;
  let t = at ?? now();
  const kind = mode === "after" && afterIsFile() ? "output" : "original";
  let playing = !m.paused;
  const seq = state.seekSeq;
  if (kind !== state.srcKind) {
    const tok = state.token;
    const url = kind === "output" ? state.job.output.url : `${JOBS}/${state.job.id}/original`;
    let src;
    try { src = await mediaURL(url); } catch (err) { say("listen-note", "Cannot play it here: " + errorText(err), "bad"); return; }
    if (tok !== state.token) { if (src.startsWith("blob:")) URL.revokeObjectURL(src); return; }
    state.srcKind = kind;
    m.src = src;
    freeBlob(src);
    await new Promise((done) => { m.addEventListener("loadedmetadata", done, { once: true }); m.addEventListener("error", done, { once: true }); });
    // A seek made while the source loaded (a filler's Listen) wins over
    // the time asked for before.
    if (state.seekSeq !== seq) { t = state.seekAt; playing = playing || state.seekPlay; }
  }
  m.currentTime = kind === "output" ? toRendered(t) : t;
  if (playing) m.play().catch(() => {});
  listenNote();
  draw();
}

// freeBlob frees the player's object URL unless it is next, and keeps next
// when it is one: a whole file fetched without a worker is held only while
// it plays.
function freeBlob(next) {
  if (state.blob && state.blob !== next) URL.revokeObjectURL(state.blob);
  state.blob = next && next.startsWith("blob:") ? next : null;
}

function listenNote() {
  if (!state.media) return;
  let note = "";
  if (state.listen === "after") note = afterIsFile() ? "After: the rendered file." : "After: a preview of your cuts on the original (Apply renders the file).";
  say("listen-note", note);
}

function playPause() {
  const m = state.media;
  if (!m) return;
  if (m.paused) m.play().catch((err) => { if (err.name !== "AbortError") say("listen-note", "Cannot play: " + err.message, "bad"); });
  else m.pause();
}

// seek moves the playhead to original time t (and plays when asked).
function seek(t, play) {
  const m = state.media;
  t = Math.max(0, Math.min(state.dur, t));
  state.seekSeq++; state.seekAt = t; state.seekPlay = !!play;
  if (state.spp) reveal(t);
  if (m) {
    if (state.srcKind === "output") m.currentTime = toRendered(t);
    else m.currentTime = t;
    if (play && m.paused) m.play().catch(() => {});
  }
  draw(t);
}

// tick follows the playhead while playing; in the After preview it jumps over cuts.
function tick() {
  const m = state.media;
  if (!m || m.paused) return;
  if (state.listen === "after" && state.srcKind === "original") {
    const t = m.currentTime;
    for (const c of cuts()) if (t >= c.start && t < c.end - 0.01) { m.currentTime = c.end; break; }
  }
  // a loop around the selected cut starts again at its end
  if (state.loop && now() >= state.loop.end) seek(state.loop.start);
  if (!state.drag) reveal(now()); // the view follows the playhead
  draw();
  requestAnimationFrame(tick);
}

// ---- drawing -------------------------------------------------------------

function colors() {
  const s = getComputedStyle(document.documentElement), v = (n) => s.getPropertyValue(n).trim();
  return { cut: v("--cut"), filler: v("--filler"), manual: v("--manual"), kept: v("--kept"), wave: v("--wave"), quiet: v("--wave-quiet"),
    threshold: v("--threshold"), playhead: v("--playhead"), axis: v("--axis"), line: v("--line"), bg: v("--bg"), fg: v("--fg") };
}

// ---- the view: zoom and scroll ------------------------------------------
// The waveform shows state.spp seconds per CSS pixel; the track under the
// scroll box is as wide as the whole file at that zoom, and the canvas
// (sticky in the box) draws the part in view. Fit shows the whole file.
const MIN_SPP = 0.001; // 1 ms per pixel: the finest zoom

function fitSpp() { const w = $("wave-scroll").clientWidth; return w > 0 && state.dur > 0 ? state.dur / w : 1; }

// layout sets the track's width for the zoom and the canvas's to the box.
function layout() {
  const box = $("wave-scroll"), w = box.clientWidth;
  if (!state.dur || w === 0) return;
  const fit = fitSpp();
  if (state.fit || !state.spp || state.spp > fit) { state.spp = fit; state.fit = true; }
  $("wave-track").style.width = Math.max(w, Math.ceil(state.dur / state.spp)) + "px";
  $("wave").style.width = w + "px";
  $("minimap").hidden = state.fit;
  const z = state.spp >= 1 ? `${state.spp.toFixed(1)} s` : `${(state.spp * 1000).toPrecision(2).replace(/\.0+$/, "")} ms`;
  $("zoom-level").textContent = state.fit ? "Whole file" : `${z} per pixel`;
  $("zoom-out").disabled = state.fit; $("zoom-fit").disabled = state.fit;
  $("zoom-in").disabled = state.spp <= MIN_SPP * 1.0001;
}

// zoomTo sets the zoom, keeping time t at x pixels from the box's left.
function zoomTo(spp, t, x) {
  if (!state.env) return;
  const fit = fitSpp(), box = $("wave-scroll");
  spp = Math.max(MIN_SPP, Math.min(fit, spp));
  if (t === undefined) { t = now(); x = Math.max(0, Math.min(box.clientWidth, t / state.spp - box.scrollLeft)); }
  state.spp = spp; state.fit = spp >= fit * 0.9999;
  layout();
  box.scrollLeft = Math.max(0, t / state.spp - x);
  draw();
}
const zoomBy = (f, t, x) => zoomTo(state.spp / f, t, x);

// reveal scrolls the view so that t is in it (centred when it was not).
function reveal(t) {
  const box = $("wave-scroll"), x = t / state.spp - box.scrollLeft;
  if (x < 0 || x > box.clientWidth) box.scrollLeft = Math.max(0, t / state.spp - box.clientWidth / 2);
}

// geometry of the canvas in CSS pixels; sx: the view's left edge in track pixels.
function geom() {
  const c = $("wave"), r = c.getBoundingClientRect();
  return { c, w: r.width, h: r.height, wave: r.height - AXIS_PX, left: r.left, top: r.top, sx: $("wave-scroll").scrollLeft };
}
const xOf = (t, g) => t / state.spp - g.sx;
const tOf = (x, g) => Math.max(0, Math.min(state.dur, (x + g.sx) * state.spp));
// clientX is where time t is in the viewport (the tests' and the minimap's use).
function clientX(t) { const g = geom(); return g.left + xOf(t, g); }

const TICKS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200];

function draw(at) {
  const g = geom(), c = g.c, env = state.env;
  if (!env || !state.dur || g.w === 0) return;
  const dpr = window.devicePixelRatio || 1;
  if (c.width !== Math.round(g.w * dpr) || c.height !== Math.round(g.h * dpr)) { c.width = Math.round(g.w * dpr); c.height = Math.round(g.h * dpr); }
  const x = c.getContext("2d"), k = colors(), W = g.w, H = g.wave;
  const t0 = g.sx * state.spp, t1 = (g.sx + W) * state.spp; // the time in view
  x.setTransform(dpr, 0, 0, dpr, 0, 0);
  x.clearRect(0, 0, W, g.h);
  // the level scale leaves a lane at the top, where the parts you kept are marked
  const yOf = (db) => H - Math.max(0, Math.min(1, (db - FLOOR_DB) / -FLOOR_DB)) * (H - 4 - LANE_PX);
  const kept = [];
  // regions under the waveform (none while the settings keep nothing: all would go)
  if (state.previewBad) { x.globalAlpha = 0.2; x.fillStyle = k.cut; x.fillRect(0, 0, W, H); x.globalAlpha = 1; }
  else state.regions.forEach((r, i) => {
    if (r.end < t0 || r.start > t1) return;
    const x0 = xOf(r.start, g), x1 = Math.max(x0 + 1, xOf(r.end, g));
    const col = r.reason === "filler" ? k.filler : r.reason === "manual" ? k.manual : k.cut;
    if (r.on) {
      x.globalAlpha = 0.28; x.fillStyle = col; x.fillRect(x0, 0, x1 - x0, H); x.globalAlpha = 1;
      // its edges (only where the cut is wide enough to show them apart)
      x.fillStyle = col;
      if (x1 - x0 >= 8) { x.fillRect(x0, 0, 2, H); x.fillRect(x1 - 2, 0, 2, H); } else x.fillRect(x0, 0, x1 - x0, LANE_PX / 2);
      if (x1 - x0 > 16) { x.fillRect(x0, H / 2 - 10, 5, 20); x.fillRect(x1 - 5, H / 2 - 10, 5, 20); } // the edges' grips
    } else {
      x.setLineDash([4, 3]); x.strokeStyle = k.kept; x.lineWidth = 1.5; x.strokeRect(x0 + 1, 1, x1 - x0 - 2, H - 2); x.setLineDash([]);
      kept.push([x0, x1]);
    }
    if (i === state.sel) { x.strokeStyle = k.fg; x.lineWidth = 2; x.strokeRect(x0, 0.5, x1 - x0, H - 1); }
  });
  // the stretch selected by a drag
  if (state.range) {
    const x0 = xOf(state.range.start, g), x1 = Math.max(x0 + 1, xOf(state.range.end, g));
    x.globalAlpha = 0.18; x.fillStyle = k.fg; x.fillRect(x0, 0, x1 - x0, H); x.globalAlpha = 1;
    x.strokeStyle = k.fg; x.lineWidth = 1; x.setLineDash([2, 2]); x.strokeRect(x0 + 0.5, 0.5, x1 - x0 - 1, H - 1); x.setLineDash([]);
  }
  // level bars, quieter than the threshold drawn faint
  const thr = state.previewBad ? Number($("thresholdDb").value) : state.threshold ?? env.thresholdDb;
  // one bar per level, or per pixel where levels are finer than pixels
  // (the loudest of them); each colour filled at once. A job of several
  // tracks draws each track's levels in its own row, stacked, under the
  // one cut list.
  const lv = levelsFor(t0, t1), n = lv.levels.length, fs = lv.frameSec, bw = fs / state.spp;
  const rows = lv.tracks && lv.tracks.length > 1 && lv.tracks.every((t) => t.length === n) ? lv.tracks : [lv.levels];
  const top = LANE_PX + 4, rh = (H - top) / rows.length;
  const quiet = new Path2D(), loud = new Path2D();
  const i0 = Math.max(0, Math.floor((t0 - lv.start) / fs)), i1 = Math.min(n, Math.ceil((t1 - lv.start) / fs) + 1);
  // level db's height in row r (the whole area when there is one row)
  const rowY = (r, db) => rows.length > 1 ? top + (r + 1) * rh - Math.max(0, Math.min(1, (db - FLOOR_DB) / -FLOOR_DB)) * (rh - 2) : yOf(db);
  rows.forEach((levels, r) => {
    const y = (db) => rowY(r, db), bottom = rows.length > 1 ? top + (r + 1) * rh : H;
    const bar = (px, w, db) => { const yy = y(db); (db < thr ? quiet : loud).rect(px, yy, w, bottom - yy); };
    if (bw >= 1) {
      for (let i = i0; i < i1; i++) bar(xOf(lv.start + i * fs, g), Math.max(1, bw - (bw > 3 ? 1 : 0)), levels[i]);
    } else {
      let col = Math.floor(xOf(lv.start + i0 * fs, g)), m = -Infinity;
      for (let i = i0; i < i1; i++) {
        const px = Math.floor(xOf(lv.start + i * fs, g));
        if (px !== col) { if (m > -Infinity) bar(col, 1, m); col = px; m = -Infinity; }
        m = Math.max(m, levels[i]);
      }
      if (m > -Infinity) bar(col, 1, m);
    }
  });
  x.fillStyle = k.quiet; x.fill(quiet);
  x.fillStyle = k.wave; x.fill(loud);
  if (rows.length > 1) {
    // the rows' dividers and names
    x.font = "11px system-ui, sans-serif"; x.textBaseline = "top";
    rows.forEach((_, r) => {
      const y0 = top + r * rh;
      if (r > 0) { x.fillStyle = k.line; x.fillRect(0, Math.round(y0), W, 1); }
      const name = trackName(r), tw = x.measureText(name).width;
      x.globalAlpha = 0.85; x.fillStyle = k.bg; x.fillRect(W - tw - 10, y0 + 2, tw + 6, 14); x.globalAlpha = 1;
      x.fillStyle = k.axis; x.fillText(name, W - tw - 7, y0 + 3);
    });
  }
  c.dataset.tracks = String(rows.length);
  c.dataset.levelSec = String(fs);
  // the parts you kept: a solid band in the lane, labelled when it fits
  x.font = "bold 11px system-ui, sans-serif"; x.textBaseline = "middle";
  for (const [x0, x1] of kept) {
    x.fillStyle = k.kept; x.fillRect(x0, 0, x1 - x0, LANE_PX);
    if (x1 - x0 > 40) { x.fillStyle = k.bg; x.fillText("kept", x0 + 4, LANE_PX / 2 + 0.5); }
  }
  // threshold line and its value
  // (in every row of a job of several tracks; labelled in the last)
  const ty = rowY(rows.length - 1, thr);
  x.setLineDash([6, 4]); x.strokeStyle = k.threshold; x.lineWidth = 1.5;
  x.beginPath();
  rows.forEach((_, r) => { const y = rowY(r, thr); x.moveTo(0, y); x.lineTo(W, y); });
  x.stroke(); x.setLineDash([]);
  x.font = "12px system-ui, sans-serif"; x.textBaseline = "bottom";
  const label = `threshold ${Math.round(thr)} dB`, ly = Math.max(16, ty - 3), lw = x.measureText(label).width;
  x.globalAlpha = 0.85; x.fillStyle = k.bg; x.fillRect(2, ly - 14, lw + 6, 15); x.globalAlpha = 1;
  x.fillStyle = k.threshold; x.fillText(label, 5, ly);
  if (state.previewBad) {
    const m = "Nothing would be kept with these settings", mw = x.measureText(m).width;
    x.globalAlpha = 0.85; x.fillStyle = k.bg; x.fillRect(W / 2 - mw / 2 - 8, H / 2 - 12, mw + 16, 24); x.globalAlpha = 1;
    x.fillStyle = k.cut; x.textBaseline = "middle"; x.textAlign = "center";
    x.fillText(m, W / 2, H / 2); x.textAlign = "start";
  }
  // time axis
  x.fillStyle = k.line; x.fillRect(0, H, W, 1);
  x.fillStyle = k.axis; x.strokeStyle = k.axis; x.lineWidth = 1; x.textBaseline = "top";
  const step = TICKS.find((s) => s / state.spp >= 70) || 7200;
  for (let t = Math.floor(t0 / step) * step; t <= Math.min(t1, state.dur) + 1e-9; t += step) {
    const px = Math.round(xOf(t, g)) + 0.5;
    x.beginPath(); x.moveTo(px, H); x.lineTo(px, H + 5); x.stroke();
    const label = step < 0.1 ? clock(t, 2) : clock(t, step < 1 ? 1 : 0);
    const tw = x.measureText(label).width;
    x.fillText(label, Math.min(Math.max(0, px - tw / 2), W - tw), H + 7);
  }
  // playhead
  const t = at ?? now();
  const px = Math.round(xOf(t, g)) + 0.5;
  x.strokeStyle = k.playhead; x.lineWidth = 1.5;
  x.beginPath(); x.moveTo(px, 0); x.lineTo(px, g.h); x.stroke();
  x.fillStyle = k.playhead; x.beginPath(); x.moveTo(px - 5, H); x.lineTo(px + 5, H); x.lineTo(px, H + 6); x.fill();
  c.dataset.playhead = t.toFixed(3);
  // The native player counts the rendered file's time in After: both said.
  $("clock").textContent = state.srcKind === "output" && state.media ? `${clock(t)} / ${clock(state.dur)} (${clock(state.media.currentTime)} in the result)` : `${clock(t)} / ${clock(state.dur)}`;
  drawMini(t, t0, t1, k);
}

// drawMini draws the whole file, its cuts, the part in view and the
// playhead on the minimap (shown while zoomed in); a click or a drag on
// it moves the view there.
function drawMini(t, t0, t1, k) {
  const c = $("minimap");
  if (c.hidden || !state.env) return;
  const r = c.getBoundingClientRect(), dpr = window.devicePixelRatio || 1, W = r.width, H = r.height;
  if (W === 0) return;
  if (c.width !== Math.round(W * dpr) || c.height !== Math.round(H * dpr)) { c.width = Math.round(W * dpr); c.height = Math.round(H * dpr); }
  const x = c.getContext("2d"), X = (s) => (s / state.dur) * W;
  x.setTransform(dpr, 0, 0, dpr, 0, 0);
  x.clearRect(0, 0, W, H);
  const lv = state.env.levels, per = Math.max(1, Math.floor(lv.length / W));
  x.fillStyle = k.quiet;
  for (let i = 0; i < lv.length; i += per) {
    let m = -Infinity;
    for (let j = i; j < Math.min(lv.length, i + per); j++) m = Math.max(m, lv[j]);
    const h = Math.max(1, Math.min(1, (m - FLOOR_DB) / -FLOOR_DB) * (H - 2));
    x.fillRect((i / lv.length) * W, H - h, Math.max(1, (per / lv.length) * W), h);
  }
  x.fillStyle = k.cut; x.globalAlpha = 0.7;
  for (const c of cuts()) x.fillRect(X(c.start), 0, Math.max(1, X(c.end) - X(c.start)), 6);
  x.globalAlpha = 1;
  x.strokeStyle = k.fg; x.lineWidth = 2;
  const v0 = X(t0), v1 = Math.max(v0 + 3, X(Math.min(t1, state.dur)));
  x.strokeRect(v0 + 1, 1, v1 - v0 - 2, H - 2);
  x.fillStyle = k.playhead; x.fillRect(X(t) - 0.75, 0, 1.5, H);
}

function miniSeek(e) {
  const c = $("minimap"), r = c.getBoundingClientRect(), box = $("wave-scroll");
  const t = Math.max(0, Math.min(state.dur, ((e.clientX - r.left) / r.width) * state.dur));
  box.scrollLeft = Math.max(0, t / state.spp - box.clientWidth / 2);
  draw();
}

// trackName names row r of a job of several tracks: its stream or channel.
function trackName(r) {
  const t = state.job && state.job.tracks && state.job.tracks[r];
  if (t && t.channel != null) return `track ${r + 1} (channel ${t.channel + 1})`;
  if (t && t.stream != null) return `track ${r + 1} (stream ${t.stream + 1})`;
  return `track ${r + 1}`;
}

// levelsFor gives the levels to draw t0..t1 with: the whole file's
// envelope, or, once zoomed in past it (one of its levels wider than a
// pixel), the stretch in view at the analysis's own 10 ms frames, fetched
// for the view and a view's width either side. {start, frameSec, levels}.
function levelsFor(t0, t1) {
  const env = state.env, fs = env.frameSec > 0 ? env.frameSec : state.dur / env.levels.length;
  const whole = { start: 0, frameSec: fs, levels: env.levels, tracks: env.tracks };
  if (fs <= ANALYSIS_FRAME_SEC * 1.001 || state.spp >= fs) return whole;
  const f = state.fine, end = Math.min(t1, state.dur);
  if (f && f.start <= t0 + f.frameSec && f.start + f.levels.length * f.frameSec >= end - f.frameSec) return f;
  fetchFine(t0, t1);
  return f && f.start < end && f.start + f.levels.length * f.frameSec > t0 ? f : whole;
}

// FINE_POINTS bounds the levels of a stretch fetched for a zoomed view
// (20000 of 10 ms: 200 s, a view of 66 s and as much either side).
const FINE_POINTS = 20000;

// fetchFine asks, once the view has settled (a scroll or zoom in
// progress asks again), for the levels of t0..t1 and a view's width either
// side at 10 ms frames; the view is drawn again when they come.
function fetchFine(t0, t1) {
  clearTimeout(state.fineTimer);
  const tok = state.token, job = state.job;
  state.fineTimer = setTimeout(async () => {
    const span = t1 - t0, mid = (t0 + t1) / 2;
    const half = Math.min(1.5 * span, (FINE_POINTS * ANALYSIS_FRAME_SEC) / 2);
    const from = Math.max(0, mid - half), to = Math.min(state.dur, mid + half);
    if (!(to > from)) return;
    const points = Math.min(FINE_POINTS, Math.ceil((to - from) / ANALYSIS_FRAME_SEC));
    const f = await api("GET", `${JOBS}/${job.id}/envelope?points=${points}&from=${from.toFixed(2)}&to=${to.toFixed(2)}`).catch(() => null);
    if (!f || tok !== state.token || job !== state.job || !state.env) return;
    state.fine = f;
    draw();
  }, 150);
}

// ---- pointer and keyboard on the waveform --------------------------------

// edgeAt finds a cut's edge within EDGE_PX of x: {i, side}.
function edgeAt(x, g) {
  let best = null, bd = EDGE_PX;
  state.regions.forEach((r, i) => {
    if (!r.on) return;
    for (const side of ["start", "end"]) {
      const d = Math.abs(xOf(r[side], g) - x);
      if (d <= bd) { bd = d; best = { i, side }; }
    }
  });
  return best;
}

// A click (a tap) moves the playhead and selects the cut under it; it
// never cuts or keeps anything. Cutting and keeping are explicit acts: a
// button of the selection bar, Enter, or a drag across the waveform that
// selects a stretch (then cut or kept by its button or Enter). A touch
// that moves is the browser's (it scrolls); only a mouse or a pen drags.
const DRAG_PX = 4; // how far a mouse moves before a press is a drag-select

// touchEdge finds the selected cut's edge within TOUCH_EDGE_PX of x: a
// finger drags only the edges of the cut a tap selected, so a swipe that
// scrolls the page never moves one. {i, side}.
function touchEdge(x, g) {
  const r = state.regions[state.sel];
  if (!r || !r.on) return null;
  const ds = Math.abs(xOf(r.start, g) - x), de = Math.abs(xOf(r.end, g) - x);
  if (Math.min(ds, de) > TOUCH_EDGE_PX) return null;
  return { i: state.sel, side: ds <= de ? "start" : "end" };
}

function pointerDown(e) {
  if (!state.env || (e.pointerType !== "touch" && e.button !== 0)) return;
  const g = geom(), px = e.clientX - g.left, py = e.clientY - g.top;
  if (e.pointerType === "touch") {
    const edge = py < g.wave && touchEdge(px, g);
    if (!edge) { state.drag = { kind: "tap", x0: px, y0: py }; return; }
    $("wave").setPointerCapture(e.pointerId);
    state.drag = { kind: "edge", i: edge.i, side: edge.side, x0: px, off: xOf(state.regions[edge.i][edge.side], g) - px, moved: false };
    return;
  }
  $("wave").setPointerCapture(e.pointerId);
  if (py >= g.wave) { state.drag = { kind: "seek" }; seek(tOf(px, g)); return; }
  const edge = edgeAt(px, g);
  state.drag = edge ? { kind: "edge", i: edge.i, side: edge.side, x0: px, off: xOf(state.regions[edge.i][edge.side], g) - px, moved: false } : { kind: "select", x0: px, t0: tOf(px, g), moved: false };
}

function pointerMove(e) {
  if (!state.env) return;
  const g = geom(), px = e.clientX - g.left, py = e.clientY - g.top, d = state.drag, c = $("wave");
  if (!d) {
    c.style.cursor = py >= g.wave ? "col-resize" : edgeAt(px, g) ? "ew-resize" : "text";
    return;
  }
  if (d.kind === "tap") { if (Math.hypot(px - d.x0, py - d.y0) > 10) state.drag = null; return; } // a swipe: the browser scrolls
  if (d.kind === "seek") { seek(tOf(px, g)); return; }
  if (!d.moved && Math.abs(px - d.x0) < DRAG_PX) return;
  if (d.kind === "select") {
    d.moved = true;
    const t = tOf(px, g);
    state.range = { start: Math.min(d.t0, t), end: Math.max(d.t0, t) };
    state.sel = -1;
    selBar();
    draw();
    return;
  }
  if (!d.moved) { snapshot(); d.moved = true; }
  const r = state.regions[d.i], t = tOf(px + d.off, g); // the edge moves as the pointer does, from where it was
  if (d.side === "start") {
    const lo = state.regions.slice(0, d.i).reduce((m, x) => Math.max(m, x.end), 0);
    r.start = Math.max(lo, Math.min(r.end - MIN_CUT, t));
  } else {
    const hi = state.regions.slice(d.i + 1).reduce((m, x) => Math.min(m, x.start), state.dur);
    r.end = Math.min(hi, Math.max(r.start + MIN_CUT, t));
  }
  if (r.reason !== "manual") r.reason = "manual";
  state.sel = d.i; state.range = null;
  say("edit-msg", `Cut ${span(r.start, r.end)}.`);
  changed();
}

function pointerUp(e) {
  const d = state.drag;
  state.drag = null;
  if (!d || !state.env) return;
  const g = geom(), px = e.clientX - g.left;
  if (d.kind === "select" && d.moved) {
    if (state.range && state.range.end - state.range.start < MIN_CUT) state.range = null;
    selBar(); draw();
    return;
  }
  if (d.kind === "tap" || d.kind === "select" || (d.kind === "edge" && !d.moved)) {
    const t = tOf(px, g);
    state.range = null;
    state.sel = regionAt(t);
    seek(t);
    selBar();
  }
}

// selBar says what is selected and offers what can be done with it.
function selBar() {
  if (state.loop && !(state.regions[state.sel] && state.loop.start === Math.max(0, state.regions[state.sel].start - 1.5))) state.loop = null;
  const bar = $("sel-bar");
  for (const b of bar.querySelectorAll("button")) b.remove();
  const add = (label, act, fn, aria) => {
    const b = document.createElement("button");
    b.type = "button"; b.className = "secondary"; b.textContent = label; b.dataset.act = act;
    if (aria) b.setAttribute("aria-label", aria);
    b.onclick = fn;
    bar.append(b);
  };
  const rg = state.range, r = state.regions[state.sel];
  if (rg && !state.previewBad) {
    $("sel-text").textContent = `Selected ${span(rg.start, rg.end)}.`;
    add("Cut selection", "cut", () => cutRange(rg.start, rg.end));
    if (state.regions.some((x) => x.on && x.start < rg.end && x.end > rg.start)) add("Keep selection", "keep", () => keepRange(rg.start, rg.end));
    add("Play selection", "play", () => seek(rg.start, true));
    add("Clear", "clear", () => { state.range = null; selBar(); draw(); });
  } else if (r && !state.previewBad) {
    $("sel-text").textContent = `${r.on ? "Cut" : "Kept by you"}: ${span(r.start, r.end)}, ${reasonWord(r.reason)}.`;
    add(r.on ? "Keep it" : "Cut it again", "toggle", () => toggle(state.sel), `${r.on ? "Keep it" : "Cut it again"}: ${clock(r.start)} to ${clock(r.end)}`);
    add("Play around it", "play", () => seek(Math.max(0, r.start - 1), true));
    if (r.on) for (const [side, d] of [["start", -NUDGE], ["start", NUDGE], ["end", -NUDGE], ["end", NUDGE]]) {
      add(`${side === "start" ? "Start" : "End"} ${d < 0 ? "−" : "+"}${NUDGE.toFixed(2)} s`, `nudge-${side}${d < 0 ? "-" : "+"}`, () => nudge(state.sel, side, d));
    }
    add(state.loop ? "Stop the loop" : "Loop around it", "loop", () => { state.loop = state.loop ? null : { start: Math.max(0, r.start - 1.5), end: Math.min(state.dur, r.end + 1.5) }; if (state.loop) seek(state.loop.start, true); selBar(); });
  } else {
    $("sel-text").textContent = "Nothing selected: click a cut, or drag across the waveform to select a stretch.";
  }
}

// nudge moves an edge of cut i by d seconds (the buttons do on a phone
// what a drag does with a mouse), within its neighbours.
const NUDGE = 0.05;
function nudge(i, side, d) {
  const r = state.regions[i];
  if (!r) return;
  snapshot();
  if (side === "start") {
    const lo = state.regions.slice(0, i).reduce((m, x) => Math.max(m, x.end), 0);
    r.start = Math.max(lo, Math.min(r.end - MIN_CUT, r.start + d));
  } else {
    const hi = state.regions.slice(i + 1).reduce((m, x) => Math.min(m, x.start), state.dur);
    r.end = Math.min(hi, Math.max(r.start + MIN_CUT, r.end + d));
  }
  r.reason = "manual";
  state.sel = i;
  say("edit-msg", `Cut ${span(r.start, r.end)}.`);
  changed();
}

// cutRange cuts [a, b): cuts it overlaps join it, parts you kept in it go.
function cutRange(a, b) {
  a = Math.max(0, a); b = Math.min(state.dur, b);
  if (b - a < MIN_CUT) return;
  snapshot();
  const out = [];
  for (const r of state.regions) {
    if (r.end <= a || r.start >= b) { out.push(r); continue; }
    if (r.on) { a = Math.min(a, r.start); b = Math.max(b, r.end); continue; }
    // a part kept by you: what lies outside the new cut stays kept
    if (r.start < a && a - r.start >= MIN_CUT) out.push(Object.assign({}, r, { end: a }));
    if (r.end > b && r.end - b >= MIN_CUT) out.push(Object.assign({}, r, { start: b }));
  }
  out.push({ start: a, end: b, reason: "manual", on: true });
  out.sort((x, y) => x.start - y.start);
  state.regions = out;
  state.range = null;
  state.sel = out.findIndex((r) => r.start === a && r.end === b);
  say("edit-msg", `Cut ${span(a, b)}.`);
  changed();
}

// keepRange keeps [a, b): cuts inside it are kept, cuts across its edges shortened.
function keepRange(a, b) {
  snapshot();
  const out = [];
  for (const r of state.regions) {
    if (!r.on || r.end <= a || r.start >= b) { out.push(r); continue; }
    if (r.start >= a && r.end <= b) { out.push(Object.assign({}, r, { on: false })); continue; }
    if (r.start < a && a - r.start >= MIN_CUT) out.push({ start: r.start, end: a, reason: "manual", on: true });
    if (r.end > b && r.end - b >= MIN_CUT) out.push({ start: b, end: r.end, reason: "manual", on: true });
  }
  out.sort((x, y) => x.start - y.start);
  state.regions = out;
  state.range = null; state.sel = -1;
  say("edit-msg", `Kept ${span(a, b)}.`);
  changed();
}

function typing(el) {
  return el && (el.tagName === "TEXTAREA" || el.tagName === "SELECT" ||
    (el.tagName === "INPUT" && ["text", "url", "password", "checkbox", "file", "search"].includes(el.type)));
}

// pointerFocus is the element last focused by a pointer (a click or a tap),
// null when the focus came by the keyboard or a script.
let pointerFocus = null, pointerAt = -1e9;
document.addEventListener("pointerdown", () => { pointerAt = performance.now(); }, true);
document.addEventListener("focusin", (e) => { pointerFocus = performance.now() - pointerAt < 500 ? e.target : null; });

function keydown(e) {
  if ($("editor").hidden || !state.env || typing(e.target)) return;
  const slider = e.target.tagName === "INPUT" && e.target.type === "range";
  if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === "z") { e.preventDefault(); undo(); return; }
  // Space on a button or a summary reached by the keyboard is its own (the
  // browser's click); on one focused by a click (or a tap) it plays, as
  // everywhere else: it does not click that button again.
  const control = e.target.closest("button, summary, a, [role=button]");
  if (e.key === " " && !e.ctrlKey && !e.metaKey && (!control || control === pointerFocus)) { e.preventDefault(); if (control) control.blur(); playPause(); return; }
  // The Before/After pair is a radio group: the arrows move its choice
  // (wrapping), as in every radio group, not the waveform's selection.
  const radio = e.target.closest("[role=radio]");
  if (radio && ["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown"].includes(e.key)) {
    e.preventDefault();
    const group = [...radio.parentElement.querySelectorAll("[role=radio]")];
    const step = e.key === "ArrowLeft" || e.key === "ArrowUp" ? -1 : 1;
    const next = group[(group.indexOf(radio) + step + group.length) % group.length];
    next.focus();
    next.click();
    return;
  }
  if ((e.key === "ArrowRight" || e.key === "ArrowLeft") && !slider && e.target.tagName !== "VIDEO" && e.target.tagName !== "AUDIO") {
    e.preventDefault();
    if (e.shiftKey) { stepCut(e.key === "ArrowRight" ? 1 : -1); return; }
    const t = now(); // from the playhead (moving to a cut puts the playhead at its start)
    let i = -1;
    if (e.key === "ArrowRight") i = state.regions.findIndex((r) => r.start > t + 0.01);
    else for (let j = state.regions.length - 1; j >= 0; j--) if (state.regions[j].start < t - 0.01) { i = j; break; }
    if (i >= 0) {
      state.sel = i; state.range = null;
      const r = state.regions[i];
      say("edit-msg", `${r.on ? "Cut" : "Kept"}: ${span(r.start, r.end)}, ${reasonWord(r.reason)} (Enter to ${r.on ? "keep" : "cut"} it).`);
      seek(r.start);
      selBar();
    }
    return;
  }
  const onWave = e.target === $("wave") || e.target === document.body || e.target.closest(".zoom-bar");
  if (onWave && !e.ctrlKey && !e.metaKey && !e.altKey && ["+", "=", "-", "_", "0"].includes(e.key)) {
    e.preventDefault();
    if (e.key === "0") zoomTo(Infinity); else zoomBy(e.key === "-" || e.key === "_" ? 0.5 : 2);
    return;
  }
  if (e.key === "Escape" && (e.target === $("wave") || e.target === document.body) && (state.range || state.sel >= 0)) { state.range = null; state.sel = -1; selBar(); draw(); return; }
  if (e.key === "Enter" && (e.target === $("wave") || e.target === document.body)) {
    if (state.range) { e.preventDefault(); cutRange(state.range.start, state.range.end); }
    else if (state.sel >= 0) { e.preventDefault(); toggle(state.sel); }
  }
}

// ---- downloads and the job list ------------------------------------------

// downloads offers the rendered file and the timelines, each saying which
// version it gives. A download is never stale: with edits not applied yet
// (cuts or settings other than the job's plan) each button applies them
// first and downloads once the new render is done.
const TIMELINES = { fcpxml: "Final Cut Pro", premiere: "Premiere / Resolve", edl: "EDL", otio: "OpenTimelineIO", csv: "CSV" };
let pendingDownload = null; // {id, kind}: what to download once the job's render (asked by a download) is done

function downloads(job) {
  const box = $("downloads");
  box.textContent = "";
  if (!job || !job.plan || job.status === "failed") return;
  const busy = job.status !== "done";
  const edits = state.env && unapplied();
  const final = state.env ? clock(Number($("wave").dataset.final)) : "";
  const add = (label, kind, primary, disabled) => {
    const b = document.createElement("button");
    b.type = "button"; b.textContent = label; b.className = primary ? "" : "secondary"; b.dataset.kind = kind;
    b.disabled = !!disabled;
    b.onclick = guard("job-msg", () => downloadKind(kind));
    box.append(b);
  };
  const note = document.createElement("p");
  note.id = "dl-note"; note.className = "note";
  if (busy) {
    add("Download: rendering…", "output", true, true);
    note.textContent = job.status === "rendering" ? "The file is being rendered; its download is ready when the render ends." : "";
  } else if (edits && !state.previewBad) {
    add(`Apply my edits, then download (${final})`, "output", true, state.previewPending);
    note.textContent = job.output ? `Your edits are not applied yet: the last render (${clock(job.output.duration)}) does not have them. A download applies them first.`
      : "Your edits are not applied yet: a download applies them and renders the file first.";
  } else if (edits) {
    add("Download: these settings keep nothing", "output", true, true);
  } else if (job.output) {
    add(`Download ${job.output.name} (${clock(job.output.duration)}, as shown)`, "output", true);
  } else {
    add(`Render and download (${final})`, "output", true);
  }
  for (const k of Object.keys(job.timelines || {})) {
    add(`Timeline: ${TIMELINES[k] || k}${edits ? " (applies your edits first)" : ""}`, k, false, busy || (edits && (state.previewBad || state.previewPending)));
  }
  if (note.textContent) box.append(note);
}

// downloadKind downloads the rendered file (kind "output") or a timeline;
// edits not applied, or a file not rendered, are rendered first.
async function downloadKind(kind) {
  const job = state.job;
  if (!job || job.status !== "done") return;
  if (unapplied() || (kind === "output" && !job.output)) {
    pendingDownload = { id: job.id, kind };
    try { await apply(); } catch (err) { pendingDownload = null; throw err; }
    return;
  }
  await download(kind === "output" ? job.output.url : job.timelines[kind]);
}

// downloadPending runs the download that asked for the render just done.
function downloadPending(job) {
  const p = pendingDownload;
  if (!p || p.id !== job.id || job.status !== "done") return;
  pendingDownload = null;
  guard("job-msg", downloadKind)(p.kind);
}

async function refreshList() {
  if (!key()) return;
  say("list-msg", "");
  const r = await api("GET", JOBS + "?limit=20");
  if (!$("key-sec").classList.contains("ok")) keyState(true, "Key accepted.");
  const ul = $("jobs");
  ul.textContent = "";
  for (const j of r.jobs) {
    const li = document.createElement("li");
    li.dataset.id = j.id;
    const open = document.createElement("button");
    open.type = "button"; open.className = "secondary"; open.textContent = `${j.input.name} (${STATUS[j.status] || j.status})`;
    const meta = document.createElement("span");
    meta.className = "job-meta";
    const when = new Date(j.createdAt);
    const parts = [isNaN(when) ? "" : when.toLocaleString(undefined, { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", hour12: false })];
    if (j.input.duration) parts.push(clock(j.input.duration, 0) + " long");
    if (j.preset) parts.push(j.preset);
    if (j.plan) parts.push(`${j.plan.stats.savedSec < 60 ? howLong(j.plan.stats.savedSec) : clock(j.plan.stats.savedSec, 0)} saved (${j.plan.stats.savedPct.toFixed(0)}%)`);
    meta.textContent = parts.filter(Boolean).join(" · ");
    open.onclick = guard("list-msg", async () => {
      // The open job again keeps its edits (they come back from this browser).
      if (!(state.job && state.job.id === j.id) && !leaveEdits()) return;
      const tok = state.token; // a job started or opened meanwhile wins
      const job = await api("GET", `${JOBS}/${j.id}`);
      if (tok === state.token) follow(job);
    });
    const del = document.createElement("button");
    del.type = "button"; del.className = "danger"; del.textContent = "Delete…"; del.setAttribute("aria-label", "Delete " + j.input.name);
    del.onclick = () => confirmDelete(li, j, del);
    li.append(open, del, meta);
    ul.append(li);
  }
  if (r.jobs.length === 0) { const li = document.createElement("li"); li.textContent = "No jobs yet."; ul.append(li); }
  markOpen();
}

// markOpen marks the open job in the list.
function markOpen() {
  for (const li of $("jobs").querySelectorAll("li[data-id]")) {
    const open = !!state.job && li.dataset.id === state.job.id, b = li.querySelector("button.secondary");
    li.classList.toggle("current", open);
    if (open) b.setAttribute("aria-current", "true"); else b.removeAttribute("aria-current");
    let badge = li.querySelector(".badge");
    if (open && !badge) { badge = document.createElement("span"); badge.className = "badge"; badge.textContent = "open"; b.after(badge); }
    if (!open && badge) badge.remove();
  }
}

// confirmDelete asks in place: the job is deleted only on a second, explicit click.
function confirmDelete(li, j, del) {
  del.hidden = true;
  const q = document.createElement("span");
  q.className = "confirm-row";
  q.append(`Delete ${j.input.name} and its files? `);
  const yes = document.createElement("button");
  yes.type = "button"; yes.className = "danger confirm"; yes.textContent = "Delete";
  const no = document.createElement("button");
  no.type = "button"; no.className = "secondary"; no.textContent = "Cancel";
  no.onclick = () => { q.remove(); del.hidden = false; del.focus(); };
  yes.onclick = guard("list-msg", async () => {
    await api("DELETE", `${JOBS}/${j.id}`);
    if (state.job && state.job.id === j.id) { unfollow(); history.replaceState(null, "", location.pathname + location.search); }
    forgetEdit(j.id);
    await refreshList();
    $("refresh").focus(); // the row is gone: keyboard focus stays in the list
  });
  q.append(yes, " ", no);
  li.append(q);
  no.focus();
}

// ---- formatting ----------------------------------------------------------

// span is a stretch of time as a podcaster reads it: from, to and how long.
function span(a, b) { return `${clock(a)} – ${clock(b)} (${howLong(b - a)})`; }
// howLong is a length: hundredths of a second under 10 s, tenths under a minute.
function howLong(sec) { return sec < 10 ? `${sec.toFixed(2)} s` : sec < 60 ? `${sec.toFixed(1)} s` : clock(sec); }

// clock writes a time with digits decimals of a second (1: tenths; true
// is 1 and false 0, as the page's calls have it).
function clock(sec, digits = 1) {
  sec = Math.max(0, sec || 0);
  const d = digits === true ? 1 : digits === false ? 0 : digits;
  const h = Math.floor(sec / 3600), m = Math.floor((sec % 3600) / 60), s = sec % 60;
  const ss = d > 0 ? s.toFixed(d).padStart(3 + d, "0") : String(Math.floor(s)).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${ss}` : `${m}:${ss}`;
}
// humanBytes gives a size in SI units, as the server's limit (4 GB, 4e9 bytes) is written.
function humanBytes(n) {
  return n >= 1e9 ? (n / 1e9).toFixed(2) + " GB" : n >= 1e6 ? (n / 1e6).toFixed(1) + " MB" : Math.ceil(n / 1e3) + " kB";
}

// ---- wiring --------------------------------------------------------------

$("key").value = localStorage.getItem("autocut.key") || "";
$("key").oninput = () => { saveKey(); if ($("key-msg").classList.contains("bad")) keyState(null, ""); keyFixed(); };
$("key-form").onsubmit = (e) => { e.preventDefault(); checkKey(); };
$("url").oninput = () => { if ($("url").value.trim() && picked) pick(null); updateStart(); };
$("url-form").onsubmit = (e) => { e.preventDefault(); if (!$("start").disabled) start(); };
const drop = $("drop");
drop.onclick = () => $("file").click();
drop.onkeydown = (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); $("file").click(); } };
drop.ondragover = (e) => { e.preventDefault(); drop.classList.add("over"); };
drop.ondragleave = () => drop.classList.remove("over");
drop.ondrop = (e) => { e.preventDefault(); drop.classList.remove("over"); if (e.dataTransfer.files[0]) pick(e.dataTransfer.files[0]); };
$("file").onchange = () => { if ($("file").files[0]) pick($("file").files[0]); };
$("unpick").onclick = () => pick(null);
$("format").onchange = () => say("format-note", "");
$("start").onclick = start;
for (const p of PARAMS) $(p).oninput = () => { setSlider(p, $(p).value); if (state.env) preview(); };
$("apply").onclick = guard("apply-msg", apply);
$("undo").onclick = undo;
$("play").onclick = playPause;
// Previous / next cut: selected, and played from a second before it.
function stepCut(dir) {
  const t = state.sel >= 0 && state.regions[state.sel] ? state.regions[state.sel].start : now();
  let i = -1;
  if (dir > 0) i = state.regions.findIndex((r) => r.start > t + 0.01);
  else for (let j = state.regions.length - 1; j >= 0; j--) if (state.regions[j].start < t - 0.01) { i = j; break; }
  if (i < 0) return;
  state.sel = i; state.range = null;
  const r = state.regions[i];
  say("edit-msg", `${r.on ? "Cut" : "Kept"}: ${span(r.start, r.end)}, ${reasonWord(r.reason)}.`);
  selBar();
  seek(Math.max(0, r.start - 1), true);
}
$("prev-cut").onclick = () => stepCut(-1);
$("next-cut").onclick = () => stepCut(1);
$("rate").onchange = () => { if (state.media) { state.media.playbackRate = state.media.defaultPlaybackRate = Number($("rate").value); } };
$("listen-before").onclick = () => setListen("before");
$("listen-after").onclick = () => setListen("after");
$("refresh").onclick = guard("list-msg", refreshList);
$("cuts-box").addEventListener("toggle", () => { if ($("cuts-box").open && state.env) { clearTimeout(state.listTimer); cutList(); } });
const wave = $("wave");
wave.addEventListener("pointerdown", pointerDown);
wave.addEventListener("pointermove", pointerMove);
wave.addEventListener("pointerup", pointerUp);
wave.addEventListener("pointercancel", () => { state.drag = null; });
// Ctrl (or ⌘) + wheel, and a trackpad's pinch (a wheel with ctrlKey), zoom
// around the pointer; the wheel alone scrolls the page, a sideways one the view.
$("wave-scroll").addEventListener("wheel", (e) => {
  if (!state.env || !(e.ctrlKey || e.metaKey)) return;
  e.preventDefault();
  const g = geom(), px = e.clientX - g.left;
  zoomBy(Math.exp(-e.deltaY * (e.deltaMode === 1 ? 0.05 : 0.002)), tOf(px, g), px);
}, { passive: false });
// A two-finger pinch on a touch screen zooms around its centre (the box's
// touch-action lets the browser pan, not zoom the page there).
let pinch = null;
const pinchSpan = (ts) => Math.hypot(ts[0].clientX - ts[1].clientX, ts[0].clientY - ts[1].clientY);
// A finger on the selected cut's edge drags it: the browser must not pan.
wave.addEventListener("touchstart", (e) => {
  if (!state.env || e.touches.length !== 1) return;
  const g = geom(), t = e.touches[0];
  if (t.clientY - g.top < g.wave && touchEdge(t.clientX - g.left, g)) e.preventDefault();
}, { passive: false });
$("wave-scroll").addEventListener("touchstart", (e) => {
  if (!state.env || e.touches.length !== 2) { pinch = null; return; }
  state.drag = null; // two fingers: not a tap
  const g = geom(), cx = (e.touches[0].clientX + e.touches[1].clientX) / 2 - g.left;
  pinch = { d0: pinchSpan(e.touches), spp0: state.spp, t: tOf(cx, g), x: cx };
}, { passive: true });
$("wave-scroll").addEventListener("touchmove", (e) => {
  if (!pinch || e.touches.length !== 2) return;
  const d = pinchSpan(e.touches);
  if (d > 0) zoomTo(pinch.spp0 * (pinch.d0 / d), pinch.t, pinch.x);
}, { passive: true });
$("wave-scroll").addEventListener("touchend", (e) => { if (e.touches.length < 2) pinch = null; });
let scrollDraw = 0;
$("wave-scroll").addEventListener("scroll", () => { cancelAnimationFrame(scrollDraw); scrollDraw = requestAnimationFrame(() => draw()); });
$("zoom-in").onclick = () => zoomBy(2);
$("zoom-out").onclick = () => zoomBy(0.5);
$("zoom-fit").onclick = () => zoomTo(Infinity);
const mini = $("minimap");
mini.addEventListener("pointerdown", (e) => { mini.setPointerCapture(e.pointerId); miniSeek(e); });
mini.addEventListener("pointermove", (e) => { if (mini.hasPointerCapture(e.pointerId)) miniSeek(e); });
document.addEventListener("keydown", keydown);
window.addEventListener("resize", () => { if (state.env) { layout(); draw(); } });
window.matchMedia("(prefers-color-scheme: dark)").addEventListener("change", () => draw());
// Leaving the page with edits not applied asks first (they are also kept
// in this browser, and come back when the job is opened again).
window.addEventListener("beforeunload", (e) => {
  if (state.env && unapplied()) { e.preventDefault(); e.returnValue = ""; }
});

// openHash follows the job the address names (#/jobs/ID), if not followed yet.
async function openHash() {
  const m = /^#\/jobs\/([^/]+)$/.exec(location.hash);
  if (!m || !key()) return;
  const id = decodeURIComponent(m[1]);
  if (state.job && state.job.id === id) return;
  const tok = state.token;
  const job = await api("GET", `${JOBS}/${encodeURIComponent(id)}`);
  if (tok === state.token) follow(job);
}
window.addEventListener("hashchange", guard("list-msg", openHash));

worker = startWorker();
if (key()) { guard("list-msg", refreshList)(); guard("list-msg", openHash)(); }

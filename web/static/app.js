// autocut web page: talks to the v1 API with the key kept in localStorage.
"use strict";
const $ = (id) => document.getElementById(id);
const state = { job: null, env: null, plan: null, timer: null };
const PARAMS = ["thresholdDb", "minSilenceSec", "keepSilenceMs", "minSpeechMs"];
const MESSAGES = {
  401: "That API key is missing or wrong. Check it and save it again.",
  402: "This key has no Pro plan. The API needs a Pro key.",
  404: "That job no longer exists (or belongs to another key).",
  409: "The job is still being processed; wait until it is done.",
  413: "The file is too large: 4 GB at most.",
  415: "That file is not audio or video we can read.",
  422: "Nothing would be left: the whole file sounds like silence. Try a lower threshold.",
  501: "Transcription is not available on this server; untick 'Cut filler words'.",
};

function key() { return localStorage.getItem("autocut.key") || ""; }
function showError(status, body) {
  const api = body && body.error ? ` (${body.error})` : "";
  $("error").textContent = (MESSAGES[status] || `Something went wrong (HTTP ${status}).`) + api;
}
function clearError() { $("error").textContent = ""; }

async function api(method, path, body, headers) {
  const h = Object.assign({ Authorization: "Bearer " + key() }, headers || {});
  if (body && typeof body === "object" && !(body instanceof Blob)) { h["Content-Type"] = "application/json"; body = JSON.stringify(body); }
  const r = await fetch(path, { method, headers: h, body });
  const ct = r.headers.get("Content-Type") || "";
  const data = ct.includes("json") ? await r.json() : null;
  if (!r.ok) { showError(r.status, data); throw new Error("HTTP " + r.status); }
  return data;
}

function options() {
  const o = { preset: $("preset").value, export: { format: $("format").value, denoise: $("denoise").checked, rumble: $("rumble").checked } };
  if ($("normalize").value) o.export.normalize = $("normalize").value;
  if ($("transcribe").checked) o.transcribe = true;
  return o;
}

// Form B: the raw file as the body, streamed by the browser, with upload progress.
function upload(file) {
  clearError();
  const xhr = new XMLHttpRequest();
  xhr.open("POST", "/api/v1/jobs");
  xhr.setRequestHeader("Authorization", "Bearer " + key());
  xhr.setRequestHeader("X-Filename", encodeURIComponent(file.name).replace(/%20/g, " ").replace(/%[0-9A-F]{2}/g, "_"));
  xhr.setRequestHeader("X-Options", JSON.stringify(options()));
  $("upload").hidden = false;
  xhr.upload.onprogress = (e) => { if (e.lengthComputable) $("upload-bar").value = (100 * e.loaded) / e.total; };
  xhr.onload = () => {
    $("upload").hidden = true;
    let body = null; try { body = JSON.parse(xhr.responseText); } catch (_) {}
    if (xhr.status !== 202) { showError(xhr.status, body); return; }
    follow(body);
  };
  xhr.onerror = () => { $("upload").hidden = true; $("error").textContent = "The upload failed (network error)."; };
  xhr.send(file);
}

async function createFromURL(url) {
  clearError();
  follow(await api("POST", "/api/v1/jobs", Object.assign({ url }, options())));
}

function follow(job) {
  state.job = job; state.env = null; state.plan = null;
  $("job").hidden = false; $("player").hidden = true; $("downloads").textContent = "";
  render(job);
  clearTimeout(state.timer);
  poll();
}

async function poll() {
  const job = await api("GET", "/api/v1/jobs/" + state.job.id);
  state.job = job;
  render(job);
  if (job.status === "done" || job.status === "failed") { finished(job); refreshList(); return; }
  state.timer = setTimeout(poll, 1000);
}

function render(job) {
  $("job-name").textContent = job.input.name;
  $("job-status").textContent = job.status === "failed" ? `failed: ${job.error ? job.error.message : ""}` : job.status;
  $("job-bar").value = job.progress || 0;
}

async function finished(job) {
  if (job.status !== "done") { if (job.error) $("error").textContent = job.error.message; return; }
  state.plan = job.plan;
  for (const p of PARAMS) {
    const v = p === "thresholdDb" ? (job.params.thresholdDb ?? job.plan.thresholdDb) : job.params[p];
    $(p).value = v; $(p).nextElementSibling.textContent = v;
  }
  state.env = await api("GET", `/api/v1/jobs/${job.id}/envelope?points=2000`);
  draw();
  stats(job.plan);
  downloads(job);
}

function stats(plan) {
  const s = plan.stats, dl = $("stats");
  dl.textContent = "";
  const rows = [["Original", s.originalSec.toFixed(1) + " s"], ["Final", s.finalSec.toFixed(1) + " s"],
    ["Saved", `${s.savedSec.toFixed(1)} s (${s.savedPct.toFixed(1)}%)`], ["Cuts", String(s.cutsCount)]];
  for (const [k, v] of rows) {
    const dt = document.createElement("dt"); dt.textContent = k;
    const dd = document.createElement("dd"); dd.textContent = v; dd.id = "stat-" + k.toLowerCase();
    dl.append(dt, dd);
  }
}

function draw() {
  const c = $("wave"), g = c.getContext("2d"), env = state.env, plan = state.plan;
  if (!env || !plan) return;
  const w = c.width, h = c.height, dur = plan.stats.originalSec, floor = -80;
  g.clearRect(0, 0, w, h);
  g.fillStyle = "rgba(198,40,40,0.25)";
  for (const cut of plan.cuts) {
    g.fillStyle = cut.reason === "filler" ? "rgba(239,108,0,0.45)" : "rgba(198,40,40,0.25)";
    g.fillRect((cut.start / dur) * w, 0, Math.max(1, ((cut.end - cut.start) / dur) * w), h);
  }
  g.fillStyle = "#1b5e20";
  const n = env.levels.length;
  for (let i = 0; i < n; i++) {
    const v = Math.max(0, (env.levels[i] - floor) / -floor);
    const x = (i / n) * w, bh = v * h;
    g.fillRect(x, (h - bh) / 2, Math.max(1, w / n), bh);
  }
  c.dataset.cuts = String(plan.cuts.length);
}

let previewTimer = null;
function preview() {
  clearTimeout(previewTimer);
  previewTimer = setTimeout(async () => {
    const q = new URLSearchParams();
    for (const p of PARAMS) q.set(p, $(p).value);
    const r = await api("GET", `/api/v1/jobs/${state.job.id}/preview?${q}`);
    state.plan = r.plan; draw(); stats(r.plan);
  }, 60);
}

async function apply() {
  const params = {};
  for (const p of PARAMS) params[p] = Number($(p).value);
  follow(await api("PATCH", "/api/v1/jobs/" + state.job.id, { params, action: "export" }));
}

// Downloads need the Bearer key, so fetch them and hand the browser a blob.
async function fetchBlob(url) {
  const r = await fetch(url, { headers: { Authorization: "Bearer " + key() } });
  if (!r.ok) { let b = null; try { b = await r.json(); } catch (_) {} showError(r.status, b); throw new Error("HTTP " + r.status); }
  const cd = r.headers.get("Content-Disposition") || "";
  const m = /filename="?([^";]+)"?/.exec(cd);
  return { blob: await r.blob(), name: m ? m[1] : "download" };
}
function save(blob, name) {
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob); a.download = name; document.body.append(a); a.click(); a.remove();
}

async function downloads(job) {
  const box = $("downloads");
  box.textContent = "";
  const add = (label, url) => {
    const b = document.createElement("button");
    b.type = "button"; b.textContent = label; b.className = "secondary";
    b.onclick = async () => { const f = await fetchBlob(url); save(f.blob, f.name); };
    box.append(b);
  };
  if (job.output) {
    add(`Download ${job.output.name}`, job.output.url);
    const f = await fetchBlob(job.output.url);
    $("player").src = URL.createObjectURL(f.blob); $("player").hidden = false;
  }
  if (job.timelines) for (const [k, url] of Object.entries(job.timelines)) add(`Timeline: ${k}`, url);
}

async function refreshList() {
  if (!key()) return;
  const r = await api("GET", "/api/v1/jobs?limit=20");
  const ul = $("jobs");
  ul.textContent = "";
  for (const j of r.jobs) {
    const li = document.createElement("li");
    const open = document.createElement("button");
    open.type = "button"; open.className = "secondary"; open.textContent = `${j.input.name} (${j.status})`;
    open.onclick = () => follow(j);
    const del = document.createElement("button");
    del.type = "button"; del.textContent = "Delete"; del.setAttribute("aria-label", "Delete " + j.input.name);
    del.onclick = async () => { await api("DELETE", "/api/v1/jobs/" + j.id); refreshList(); };
    li.append(open, " ", del);
    ul.append(li);
  }
}

$("key").value = key();
$("key-form").onsubmit = (e) => { e.preventDefault(); localStorage.setItem("autocut.key", $("key").value.trim()); $("key-status").textContent = "Saved."; clearError(); refreshList().catch(() => {}); };
$("url-form").onsubmit = (e) => { e.preventDefault(); if ($("url").value) createFromURL($("url").value).catch(() => {}); };
const drop = $("drop");
drop.onclick = () => $("file").click();
drop.onkeydown = (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); $("file").click(); } };
drop.ondragover = (e) => { e.preventDefault(); drop.classList.add("over"); };
drop.ondragleave = () => drop.classList.remove("over");
drop.ondrop = (e) => { e.preventDefault(); drop.classList.remove("over"); if (e.dataTransfer.files[0]) upload(e.dataTransfer.files[0]); };
$("file").onchange = () => { if ($("file").files[0]) upload($("file").files[0]); };
for (const p of PARAMS) $(p).oninput = () => { $(p).nextElementSibling.textContent = $(p).value; if (state.env) preview(); };
$("apply").onclick = () => apply().catch(() => {});
$("refresh").onclick = () => refreshList().catch(() => {});
refreshList().catch(() => {});

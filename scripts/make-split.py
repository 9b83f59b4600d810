#!/usr/bin/env python3
"""Writes testdata/split/speech.tsv: the real speech material split by speaker
into a tune part and a report part (issue "Never cut a word").

The split is made once, before any tuning, and committed; this script only
documents how. Speakers that share a recording are one group (union-find over
the INDEX's speaker column), and a group goes whole to one part: the groups the
planner was already tuned on (the six speech recordings of the real-speech
mixes) to tune, every other group by the parity of the SHA-1 of its sorted
speaker names. Non-speech files (noise, music, silence, laughter) are beds,
not speakers, and are listed with the part "bed".

    AUTOCUT_REALDATA=DIR scripts/make-split.py > testdata/split/speech.tsv
"""
import csv, hashlib, os, sys

root = os.environ.get("AUTOCUT_REALDATA")
if not root:
    sys.exit("make-split: set AUTOCUT_REALDATA")
repo = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")

# (source, path, language, kind, speakers, timing)
rows = []
for name in sorted(os.listdir(os.path.join(repo, "testdata", "recordings"))):
    if not name.endswith((".wav", ".flac", ".ogg")):
        continue
    kind = name.split("_", 1)[0]
    spk = {
        "en_asterisk_allison": "asterisk:allison", "es_asterisk_allison": "asterisk:allison",
        "fr_asterisk_june": "asterisk:june", "it_asterisk_carlo": "asterisk:carlo",
        "ru_asterisk_ivrvoice": "asterisk:ivrvoice", "en_librivox_sense": "librivox:sense_0870",
    }
    s = next((v for k, v in spk.items() if name.startswith(k)), "")
    rows.append(("repo", "testdata/recordings/" + name, kind if s else "", "read (prompts)" if s else kind, s, "none"))
for name, spk, timing in [
    ("en_jfk_inaugural_11s.flac", "jfk", "none"),
    ("en_librispeech_5703-47212-0000.ogg", "libri:5703", "none"),
    ("fr_picovoice_leopard_test_fr.wav", "pv:fr", "word: recordings/fr_picovoice_leopard_test_fr.words.json"),
]:
    rows.append(("realdata", "recordings/" + name, name[:2], "read", spk, timing))
with open(os.path.join(root, "corpus", "INDEX.tsv"), newline="") as f:
    for r in csv.DictReader(f, delimiter="\t"):
        kind = r["kind"]
        nonspeech = any(w in kind for w in ("noise", "music", "silence", "laughter")) and "speech" not in kind
        path = "corpus/" + r["local_path"]
        if "apollo" in path.lower():  # held out: never used
            continue
        rows.append(("realdata", path, r["language"], kind, "" if nonspeech else r["speakers"], r["word_timings"]))

# Union-find over speakers.
parent = {}
def find(x):
    parent.setdefault(x, x)
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x
for r in rows:
    spk = [s for s in r[4].split(";") if s]
    for s in spk[1:]:
        parent[find(s)] = find(spk[0])
    if spk:
        find(spk[0])
groups = {}
for s in list(parent):
    groups.setdefault(find(s), set()).add(s)
tuned = {"asterisk:allison", "asterisk:june", "jfk", "libri:5703", "librivox:sense_0870", "pv:fr"}
part = {}
for members in groups.values():
    key = ";".join(sorted(members))
    p = "tune" if members & tuned else ("tune" if hashlib.sha1(key.encode()).digest()[0] % 2 == 0 else "report")
    for s in members:
        part[s] = p

w = csv.writer(sys.stdout, delimiter="\t", lineterminator="\n")
w.writerow(["part", "source", "path", "language", "kind", "speakers", "timing"])
for r in rows:
    spk = [s for s in r[4].split(";") if s]
    w.writerow([part[spk[0]] if spk else "bed", *r])

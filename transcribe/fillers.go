package transcribe

import (
	"math"
	"sort"
	"strings"

	"github.com/autocut-dev/autocut/plan"
)

// Filler lexicons per language. Sure words are fillers wherever they are;
// ambiguous ones ("like", "ben", "genre") only when flanked by pauses.
var (
	sureFillers = map[string][]string{
		"en": {"um", "uh", "erm", "er", "ah", "hmm", "mm", "uhm", "umm", "hm"},
		"fr": {"euh", "heu", "euhm", "hum", "bah", "hein"},
	}
	ambiguousFillers = map[string][]string{
		"en": {"like", "you know", "so", "well"},
		"fr": {"ben", "bon", "genre", "voilà", "quoi"},
	}
)

// flankPause is the silence on both sides that turns an ambiguous word into a filler.
const flankPause = 0.25

// normalize lowercases a recognised word and strips punctuation and the
// pronunciation variant suffix pocketsphinx adds ("market(2)").
func normalize(w string) string {
	w = strings.ToLower(strings.TrimSpace(w))
	if i := strings.IndexByte(w, '('); i > 0 {
		w = w[:i]
	}
	return strings.Trim(w, ".,!?;:\"'…-")
}

// DetectFillers finds filler words among timed words of language lang
// ("en", "fr"; "" tries both lexicons).
func DetectFillers(words []Word, lang string) []Filler {
	langs := []string{lang}
	if lang == "" {
		langs = []string{"en", "fr"}
	}
	sure, amb := map[string]bool{}, map[string]bool{}
	for _, l := range langs {
		for _, w := range sureFillers[l] {
			sure[w] = true
		}
		for _, w := range ambiguousFillers[l] {
			amb[w] = true
		}
	}
	var out []Filler
	for i := 0; i < len(words); i++ {
		w := normalize(words[i].Word)
		if sure[w] {
			out = append(out, Filler{Word: w, Start: words[i].Start, End: words[i].End, Kind: "filler", Confidence: max(words[i].Confidence, 0.5)})
			continue
		}
		// two-word ambiguous fillers ("you know")
		n, end := w, words[i].End
		if i+1 < len(words) && amb[w+" "+normalize(words[i+1].Word)] {
			n, end = w+" "+normalize(words[i+1].Word), words[i+1].End
		}
		if !amb[n] {
			continue
		}
		last := i + len(strings.Fields(n)) - 1
		before := i == 0 || words[i].Start-words[i-1].End >= flankPause
		after := last == len(words)-1 || words[last+1].Start-end >= flankPause
		if before && after {
			out = append(out, Filler{Word: n, Start: words[i].Start, End: end, Kind: "filler", Confidence: 0.4 * max(words[i].Confidence, 0.5)})
			i = last
		}
	}
	return out
}

// mergeFillers sorts fillers and merges overlapping detections (a keyword
// pass may report "um" and "uh" over the same sound).
func mergeFillers(f []Filler) []Filler {
	sort.Slice(f, func(i, j int) bool { return f[i].Start < f[j].Start })
	var out []Filler
	for _, x := range f {
		if n := len(out); n > 0 && x.Start < out[n-1].End {
			if x.End > out[n-1].End {
				out[n-1].End = x.End
			}
			if x.Confidence > out[n-1].Confidence {
				out[n-1].Word, out[n-1].Confidence = x.Word, x.Confidence
			}
			continue
		}
		out = append(out, x)
	}
	return out
}

// FillerCuts turns a transcript's fillers marked Cut (the confident ones
// and the ones a user accepted, see Decide; a suggestion is never cut)
// into cuts with reason "filler",
// padded by pad seconds on each side (so the join does not keep a breath of
// the filler); the planner merges them with neighbouring silences. A pad
// under 0, NaN or infinite is 0. A filler is never cut into a recognised
// word: one that overlaps a word of the transcript that is not its own
// (the "um" an acoustic detector hears inside "modem") is left out, and
// the padding stops at the words on either side.
func FillerCuts(t *Transcript, pad float64) []plan.Cut {
	if t == nil {
		return nil
	}
	if !(pad > 0) || math.IsInf(pad, 1) {
		pad = 0 // (a negative pad reversed short fillers, NaN made NaN cuts)
	}
	var out []plan.Cut
	for _, f := range t.Fillers {
		if !f.Cut {
			continue
		}
		lo, hi, inWord := wordsBeside(t.Words, f)
		if inWord {
			continue
		}
		s, e := max(f.Start-pad, 0, lo), min(f.End+pad, hi)
		if n := len(out); n > 0 && s <= out[n-1].End {
			out[n-1].End = max(out[n-1].End, e)
			continue
		}
		out = append(out, plan.Cut{Start: s, End: e, Reason: plan.ReasonFiller})
	}
	return out
}

// ownWordSlack is how far (s) a word may reach past a filler's edges and
// still be the filler's own (an engine's word and filler times differ by
// a frame or two).
const ownWordSlack = 0.03

// wordsBeside returns, for filler f, the end of the last word before it
// and the start of the first word after it (0 and +Inf when none), and
// whether it overlaps a word that is not its own (one lying within its
// span, ownWordSlack either side).
func wordsBeside(words []Word, f Filler) (lo, hi float64, inWord bool) {
	lo, hi = 0, math.Inf(1)
	for _, w := range words {
		switch {
		case w.Start >= f.Start-ownWordSlack && w.End <= f.End+ownWordSlack:
			// the filler's own word
		case w.End <= f.Start:
			lo = max(lo, w.End)
		case w.Start >= f.End:
			hi = min(hi, w.Start)
		default:
			return lo, hi, true
		}
	}
	return lo, hi, false
}

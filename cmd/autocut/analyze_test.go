package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/internal/corpus"
	"github.com/autocut-dev/autocut/internal/realdata"
	"github.com/autocut-dev/autocut/plan"
)

// writeToneWAV writes a 16-bit mono 16 kHz WAV: for each segment, sec
// seconds of a 440 Hz tone at amp (0 is digital silence).
func writeToneWAV(t *testing.T, segs ...[2]float64) string {
	t.Helper()
	const rate = 16000
	var pcm []int16
	for _, s := range segs {
		for i := 0; i < int(s[0]*rate); i++ {
			pcm = append(pcm, int16(s[1]*32767*math.Sin(2*math.Pi*440*float64(len(pcm))/rate)))
		}
	}
	var b bytes.Buffer
	w := func(v any) { _ = binary.Write(&b, binary.LittleEndian, v) }
	b.WriteString("RIFF")
	w(uint32(36 + 2*len(pcm)))
	b.WriteString("WAVEfmt ")
	w(uint32(16))
	w(uint16(1))
	w(uint16(1))
	w(uint32(rate))
	w(uint32(2 * rate))
	w(uint16(2))
	w(uint16(16))
	b.WriteString("data")
	w(uint32(2 * len(pcm)))
	w(pcm)
	path := filepath.Join(t.TempDir(), "in.wav")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestAnalyzeCommand(t *testing.T) {
	speech := writeToneWAV(t, [2]float64{1, 0.3}, [2]float64{1, 0}, [2]float64{1, 0.3})
	silent := writeToneWAV(t, [2]float64{2, 0})
	tone := writeToneWAV(t, [2]float64{20, 0.1}) // 440 Hz at -23 dBFS RMS
	notAudio := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(notAudio, []byte("just some text, not a recording\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		args     []string
		code     int
		cuts     [][2]float64 // expected plan cuts (nil: no plan)
		keepSec  float64
		planErr  string
		stderrIn string
		warning  string // in the analysis's warnings
	}{
		{name: "default preset", args: []string{"analyze", speech}, code: 0,
			cuts: [][2]float64{{1.125, 1.875}}, keepSec: 2.25},
		{name: "flags after file override the preset", args: []string{"analyze", speech, "--keep-silence", "0", "--min-silence", "0.5"}, code: 0,
			cuts: [][2]float64{{1, 2}}, keepSec: 2},
		{name: "given threshold", args: []string{"analyze", "--preset", "youtube", "--threshold", "-40", speech}, code: 0,
			cuts: [][2]float64{{1.06, 1.94}}, keepSec: 2.12},
		{name: "native decoder", args: []string{"analyze", "--decoder", "native", speech}, code: 0,
			cuts: [][2]float64{{1.125, 1.875}}, keepSec: 2.25},
		{name: "ffmpeg decoder", args: []string{"analyze", "--decoder=ffmpeg", speech}, code: 0,
			cuts: [][2]float64{{1.125, 1.875}}, keepSec: 2.25},
		{name: "nothing to keep: printed with a warning, exit 0", args: []string{"analyze", silent}, code: 0,
			cuts: [][2]float64{{0, 2}}, keepSec: 0, planErr: "nothing to keep", stderrIn: "warning: plan: all 2.000 s would be cut"},
		{name: "a -23 dBFS tone has no pause: no cut, a warning, exit 0", args: []string{"analyze", tone}, code: 0,
			cuts: [][2]float64{}, keepSec: 20, warning: "no pauses found"},
		{name: "unknown preset", args: []string{"analyze", "--preset", "loud", speech}, code: 2, stderrIn: "--preset loud: allowed podcast, youtube, cours, interview, radical"},
		{name: "param out of range", args: []string{"analyze", "--min-silence", "50", speech}, code: 2, stderrIn: "--min-silence 50: allowed 0.2 to 10 s"},
		{name: "threshold not a number", args: []string{"analyze", "--threshold", "loud", speech}, code: 2, stderrIn: "--threshold loud: not a number"},
		{name: "bad decoder", args: []string{"analyze", "--decoder", "magic", speech}, code: 2, stderrIn: "allowed auto, native, ffmpeg"},
		{name: "no file", args: []string{"analyze"}, code: 2, stderrIn: "need a FILE"},
		{name: "missing file", args: []string{"analyze", filepath.Join(t.TempDir(), "nope.wav")}, code: 1, stderrIn: "no such file"},
		{name: "not audio", args: []string{"analyze", notAudio}, code: 1, stderrIn: "unsupported format"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(context.Background(), tc.args, &out, &errb)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr %s", code, tc.code, errb.String())
			}
			if tc.stderrIn != "" && !strings.Contains(errb.String(), tc.stderrIn) {
				t.Errorf("stderr %q does not say %q", errb.String(), tc.stderrIn)
			}
			if tc.cuts == nil {
				return
			}
			var doc struct {
				Input struct {
					Name     string  `json:"name"`
					Duration float64 `json:"duration"`
				} `json:"input"`
				Loudness     map[string]any `json:"loudness"`
				NoiseFloorDb *float64       `json:"noiseFloorDb"`
				ThresholdDb  *float64       `json:"thresholdDb"`
				Envelope     struct {
					FrameSec float64 `json:"frameSec"`
					Frames   int     `json:"frames"`
				} `json:"envelope"`
				Plan *struct {
					Cuts  []struct{ Start, End float64 } `json:"cuts"`
					Stats struct {
						FinalSec float64 `json:"finalSec"`
					} `json:"stats"`
				} `json:"plan"`
				PlanError string   `json:"planError"`
				Warnings  []string `json:"warnings"`
			}
			if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
				t.Fatalf("output is not JSON: %v\n%s", err, out.String())
			}
			if doc.Input.Name != "in.wav" || math.Abs(doc.Input.Duration-float64(doc.Envelope.Frames)/100) > 0.011 ||
				doc.Loudness == nil || doc.NoiseFloorDb == nil || doc.ThresholdDb == nil || doc.Envelope.FrameSec != 0.01 {
				t.Errorf("analysis fields missing or wrong: %s", out.String())
			}
			if doc.Plan == nil {
				t.Fatalf("no plan: %s", out.String())
			}
			var got [][2]float64
			for _, c := range doc.Plan.Cuts {
				got = append(got, [2]float64{c.Start, c.End})
			}
			if len(got) != len(tc.cuts) {
				t.Fatalf("cuts %v, want %v", got, tc.cuts)
			}
			for i := range got {
				if math.Abs(got[i][0]-tc.cuts[i][0]) > 0.0105 || math.Abs(got[i][1]-tc.cuts[i][1]) > 0.0105 {
					t.Errorf("cut %d %v, want %v (+/-10 ms)", i, got[i], tc.cuts[i])
				}
			}
			if math.Abs(doc.Plan.Stats.FinalSec-tc.keepSec) > 0.021 {
				t.Errorf("finalSec %v, want %v", doc.Plan.Stats.FinalSec, tc.keepSec)
			}
			if tc.warning != "" && !strings.Contains(strings.Join(doc.Warnings, "\n"), tc.warning) {
				t.Errorf("warnings %q, want one saying %q", doc.Warnings, tc.warning)
			}
			if !strings.Contains(doc.PlanError, tc.planErr) || (tc.planErr == "") != (doc.PlanError == "") {
				t.Errorf("planError %q, want %q", doc.PlanError, tc.planErr)
			}
		})
	}
}

// On a terminal, analyze also says in words what it found, on stderr;
// stdout stays the JSON document. Elsewhere stderr stays quiet.
func TestAnalyzeSummaryOnTerminal(t *testing.T) {
	in := writeToneWAV(t, [2]float64{2, 0.3}, [2]float64{1.5, 0}, [2]float64{2, 0.3})
	for _, tty := range []bool{true, false} {
		var out, errb bytes.Buffer
		code := dispatch(context.Background(), env{args: []string{"analyze", "--threshold", "-40", in}, stdout: &out, stderr: &errb, stderrTTY: tty, cleanup: &cleanup{}})
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
		var doc struct {
			Plan struct{ Stats plan.Stats } `json:"plan"`
		}
		if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
			t.Fatalf("stdout is not JSON: %v", err)
		}
		st := doc.Plan.Stats
		summary := errb.String()
		if !tty {
			if summary != "" {
				t.Errorf("stderr not a terminal, yet: %q", summary)
			}
			continue
		}
		t.Log(summary)
		if st.CutsCount != 1 || st.SavedSec < 1 {
			t.Fatalf("plan %+v, want one cut of over a second", st)
		}
		for _, s := range []string{"in.wav: 5.5 s, audio, ", " LUFS integrated, true peak ", "pauses of digital silence, speech ",
			"Silence threshold -40 dB (given).",
			fmt.Sprintf("The podcast preset makes 1 cut, saving %.1f s (%.1f%%): %.1f s remain.", st.SavedSec, st.SavedPct, st.FinalSec)} {
			if !strings.Contains(summary, s) {
				t.Errorf("the summary does not say %q: %s", s, summary)
			}
		}
		if strings.Count(summary, "\n") != 1 {
			t.Errorf("the summary is not one paragraph: %q", summary)
		}
	}
}

// The analysis judges pauses without a preset, the plan with one: over
// another voice 15 dB under the speaker (a close-mic track's crosstalk)
// level finds no pause of 0.5 s and the analysis warns, but the podcast
// preset with --crosstalk cut counts the fainter voice as pause and cuts.
// Then analyze leaves the warning out (it said nothing would be cut); where
// the plan cuts nothing (crosstalk kept, the default, in either preset), the
// warning stays.
func TestAnalyzePauseWarningFollowsPlan(t *testing.T) {
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		t.Skip("ffmpeg is not installed (scripts/test.sh installs it)")
	}
	var c corpus.MixCase
	for _, x := range corpus.MixCases() {
		if x.Name == "jfk-crosstalk-15" {
			c = x
		}
	}
	mx, err := corpus.NewMixer(realdata.AllRecordings(t)...).Mix(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(t.TempDir(), "in.wav")
	if err := mx.WriteWAV(in); err != nil {
		t.Fatal(err)
	}
	a, err := dsp.AnalyzeFile(context.Background(), in, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Warnings) == 0 || !strings.HasPrefix(a.Warnings[0], dsp.WarnNoPauses) {
		t.Fatalf("the analysis warns %q, want %q: the case no longer shows what this tests", a.Warnings, dsp.WarnNoPauses)
	}
	for _, tc := range []struct {
		preset, crosstalk string
		cuts              bool
	}{{"podcast", "cut", true}, {"podcast", "keep", false}, {"cours", "keep", false}, {"cours", "cut", true}} {
		var out, errb bytes.Buffer
		if code := run(context.Background(), []string{"analyze", "--preset", tc.preset, "--crosstalk", tc.crosstalk, in}, &out, &errb); code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.preset, code, errb.String())
		}
		var doc struct {
			Plan struct {
				Cuts []struct{ Reason string } `json:"cuts"`
			} `json:"plan"`
			Warnings []string `json:"warnings"`
		}
		if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		pauses := 0
		for _, k := range doc.Plan.Cuts {
			if k.Reason == plan.ReasonSilence || k.Reason == plan.ReasonNoise {
				pauses++
			}
		}
		warned := strings.Contains(strings.Join(doc.Warnings, "\n"), dsp.WarnNoPauses)
		if (pauses > 0) != tc.cuts || warned == tc.cuts {
			t.Errorf("%s, crosstalk %s: %d pauses cut, warnings %q; want cuts %v and the no-pause warning %v", tc.preset, tc.crosstalk, pauses, doc.Warnings, tc.cuts, !tc.cuts)
		}
	}
}

// TestCounted: the summaries say "1 cut", not "1 cuts".
func TestCounted(t *testing.T) {
	for n, want := range map[int]string{0: "0 cuts", 1: "1 cut", 2: "2 cuts", 12: "12 cuts"} {
		if got := counted(n, "cut"); got != want {
			t.Errorf("counted(%d) = %q, want %q", n, got, want)
		}
	}
}

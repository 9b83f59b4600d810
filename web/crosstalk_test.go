//go:build linux

package web_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserCrosstalk: the options' "Quieter voices" choice reaches the
// job's params (crosstalk cut), and the default keeps them (keep).
func TestBrowserCrosstalk(t *testing.T) {
	s := newSite(t)
	talk := s.gen("talk.wav", "-f", "lavfi", "-i", "anoisesrc=color=pink:seed=4:amplitude=0.4:d=12", "-af", talkFilter)
	s.run(chromedp.SendKeys("#key", testKey, chromedp.ByID))
	for _, want := range []string{"keep", "cut"} {
		tok := s.token()
		s.startJob(talk, chromedp.SetValue("#crosstalk", want, chromedp.ByID))
		s.waitEditor(tok, 90*time.Second)
		var got string
		s.eval(`state.job.params.crosstalk`, &got)
		if got != want {
			t.Errorf("Quieter voices %q: the job's params say crosstalk %q", want, got)
		}
	}
}

// TestBrowserStackedTracks: a two-channel file of one microphone per
// person, started with Microphones "one per channel", opens with each
// track's levels in its own row under the one cut list: in the host's
// turn the host's row holds the tall bars and the guest's row its floor,
// and the other way round in the guest's turn.
func TestBrowserStackedTracks(t *testing.T) {
	s := newSite(t)
	mics := s.gen("mics.wav",
		"-f", "lavfi", "-i", "sine=f=440:d=10:sample_rate=44100,volume='if(between(t,0.5,3),0.3,0.0003)':eval=frame",
		"-f", "lavfi", "-i", "sine=f=660:d=10:sample_rate=44100,volume='if(between(t,5,7.5),0.1,0.0003)':eval=frame",
		"-filter_complex", "[0:a][1:a]join=inputs=2:channel_layout=stereo[a]", "-map", "[a]", "-c:a", "pcm_s16le")
	s.run(chromedp.SendKeys("#key", testKey, chromedp.ByID))
	tok := s.token()
	s.startJob(mics, chromedp.SetValue("#tracks", "channels", chromedp.ByID))
	s.waitEditor(tok, 90*time.Second)
	var mode string
	s.eval(`state.job.tracksMode`, &mode)
	if mode != "channels" {
		t.Fatalf("the job's tracksMode is %q, want channels", mode)
	}
	s.wait("two rows of levels", `document.getElementById("wave").dataset.tracks === "2"`, 10*time.Second)
	// The drawn pixels (bars) of each row in the column of time at.
	column := func(at float64) [2]int {
		var n [2]int
		s.eval(fmt.Sprintf(`(() => { draw(); const c = document.getElementById("wave"), g = geom(), d = window.devicePixelRatio || 1;
			const x = Math.round(xOf(%f, g) * d), top = (LANE_PX + 4) * d, rh = (g.wave * d - top) / 2;
			const p = c.getContext("2d").getImageData(x, 0, 1, c.height).data, out = [0, 0];
			for (let y = Math.ceil(top); y < g.wave * d; y++) if (p[4 * y + 3] > 0) out[Math.min(1, Math.floor((y - top) / rh))]++;
			return out; })()`, at), &n)
		return n
	}
	host, guest := column(1.7), column(6.2)
	t.Logf("drawn pixels per row: host's turn %v, guest's turn %v", host, guest)
	if host[0] < 3*host[1] || host[0] < 10 {
		t.Errorf("the host's turn: rows drawn %v pixels high, want the host's (row 1) 3 times the guest's", host)
	}
	if guest[1] < 3*guest[0] || guest[1] < 10 {
		t.Errorf("the guest's turn: rows drawn %v pixels high, want the guest's (row 2) 3 times the host's", guest)
	}
	s.noErrors()
}

//go:build linux

package web_test

import (
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

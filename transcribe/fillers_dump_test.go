package transcribe

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/internal/realdata"
)

// TestDumpFrames prints the detector's per-frame features of the clips named
// in AUTOCUT_DUMP (comma-separated names under testdata/fillers): the signal
// check of the labelling method (see testdata/fillers/README.md).
func TestDumpFrames(t *testing.T) {
	names := os.Getenv("AUTOCUT_DUMP")
	if names == "" {
		t.Skip("set AUTOCUT_DUMP=clip[,clip] to print frame features")
	}
	for _, name := range strings.Split(names, ",") {
		st, err := dsp.Open(context.Background(), filepath.Join(realdata.Path(t, "fillers"), name+".flac"))
		if err != nil {
			t.Fatal(err)
		}
		feats, hop, err := (&Acoustic{}).features(context.Background(), st, nil)
		st.Close()
		if err != nil {
			t.Fatal(err)
		}
		var labels []labelled
		if _, err := os.Stat(filepath.Join(fillersDir, name+".labels")); err == nil {
			labels = loadLabels(t, filepath.Join(fillersDir, name+".labels"))
		}
		var b strings.Builder
		for k, f := range feats {
			ts := float64(k)*hop + 0.02
			lab := ""
			for _, l := range labels {
				if ts >= l.start && ts < l.end {
					lab = l.text
					if l.filler {
						lab = "FILLER " + lab
					}
				}
			}
			fmt.Fprintf(&b, "%6.2f %6.1f %6.1f %4.2f %5.1f %5.1f %s\n", ts, f.db, f.pitch, f.corr, f.flux, f.flux5, lab)
		}
		os.WriteFile(filepath.Join(os.TempDir(), "dump_"+name+".txt"), []byte(b.String()), 0o644)
	}
}

package timeline

import (
	"bytes"
	"encoding/csv"
	"testing"

	"github.com/autocut-dev/autocut/dsp"
)

// TestCSVNeutralizesFormulas checks that a source name a spreadsheet would
// run as a formula is written as text.
func TestCSVNeutralizesFormulas(t *testing.T) {
	keep := []dsp.Range{{Start: 1, End: 2}}
	for _, c := range []struct{ path, want string }{
		{`=HYPERLINK("http://x","y").wav`, `'=HYPERLINK("http://x","y").wav`},
		{"+1.wav", "'+1.wav"},
		{"-2.wav", "'-2.wav"},
		{"@SUM(A1).wav", "'@SUM(A1).wav"},
		{"\tx.wav", "'\tx.wav"},
		{"talk.wav", "talk.wav"},
		{"a=b.wav", "a=b.wav"},
	} {
		m := Media{Name: "a", File: c.path, Path: c.path, Duration: 10, SampleRate: 48000, Channels: 2}
		var b bytes.Buffer
		if err := Write(&b, CSV, keep, m, Options{}); err != nil {
			t.Fatal(err)
		}
		rows, err := csv.NewReader(&b).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		if got := rows[1][1]; got != c.want {
			t.Errorf("source %q written as %q, want %q", c.path, got, c.want)
		}
	}
	// encoding/csv's reader drops a lone CR, so this one is checked on the cell.
	if got := neutralizeFormula("\rx.wav"); got != "'\rx.wav" {
		t.Errorf("CR-led cell: %q", got)
	}
}

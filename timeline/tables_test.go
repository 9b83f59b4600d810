package timeline

import (
	"errors"
	"slices"
	"testing"

	"github.com/autocut-dev/autocut/dsp"
)

// TestParseRate: the one rate parser of the CLI and the HTTP API.
func TestParseRate(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want dsp.Rational
	}{
		{"25", dsp.Rational{Num: 25, Den: 1}},
		{"25.0", dsp.Rational{Num: 25, Den: 1}},
		{"23.976", dsp.Rational{Num: 24000, Den: 1001}},
		{"23.98", dsp.Rational{Num: 24000, Den: 1001}},
		{"29.97", dsp.Rational{Num: 30000, Den: 1001}},
		{"47.952", dsp.Rational{Num: 48000, Den: 1001}},
		{"59.94", dsp.Rational{Num: 60000, Den: 1001}},
		{"119.88", dsp.Rational{Num: 120000, Den: 1001}},
		{"12.5", dsp.Rational{Num: 12500, Den: 1000}},
		{"30000/1001", dsp.Rational{Num: 30000, Den: 1001}},
		{"50/2", dsp.Rational{Num: 50, Den: 2}},
		{"1", dsp.Rational{Num: 1, Den: 1}},
		{"240", dsp.Rational{Num: 240, Den: 1}},
	} {
		got, err := ParseRate(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseRate(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "fast", "0", "-25", "0.5", "241", "1/2", "481/2", "25/0", "0/1", "NaN", "Inf", "25fps"} {
		if r, err := ParseRate(bad); !errors.Is(err, ErrInvalidOptions) {
			t.Errorf("ParseRate(%q) = %v, %v; want ErrInvalidOptions", bad, r, err)
		}
	}
	for _, r := range AudioRates() {
		if got, err := ParseRate(r.String()); err != nil || got != r {
			t.Errorf("offered rate %s does not parse back: %v %v", r, got, err)
		}
	}
}

// TestTables: kinds, extensions, content types, versions; the functions
// hand out copies.
func TestTables(t *testing.T) {
	if got := Kinds(); !slices.Equal(got, []Kind{FCPXML, Premiere, EDL, OTIO, CSV}) {
		t.Errorf("Kinds() = %v", got)
	}
	for _, k := range Kinds() {
		if !k.Valid() || k.Ext() == "" || k.ContentType() == "" {
			t.Errorf("%s: ext %q content type %q", k, k.Ext(), k.ContentType())
		}
	}
	if Kind("aaf").Valid() || Kind("aaf").ContentType() != "" {
		t.Error("aaf is a kind")
	}
	if !slices.Contains(FCPXMLVersions(), DefaultFCPXMLVersion) {
		t.Errorf("default FCPXML version %s is not offered", DefaultFCPXMLVersion)
	}
	Kinds()[0], FCPXMLVersions()[0], AudioRates()[0] = "x", "x", dsp.Rational{}
	if Kinds()[0] != FCPXML || FCPXMLVersions()[0] != "1.8" || AudioRates()[0].Num != 24000 {
		t.Error("a table function returns shared storage")
	}
}

// Package align reads word alignments of recordings: the "words" tier of a
// Praat TextGrid (as the Montreal Forced Aligner writes it) and the
// TokensAlign tier of a SPPAS XRA file. The tests that measure the plan
// and the transcription against timed words read them with it.
package align

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// Word is one interval of an alignment: its label (a word, or a mark of
// silence or noise) and its times in seconds.
type Word struct {
	Text       string
	Start, End float64
}

// ErrNoWords reports a TextGrid without a "words" tier (an
// utterance-level one).
var ErrNoWords = errors.New("align: no word tier")

// TextGridFile returns the intervals of tier "words" of the Praat TextGrid
// at path.
func TextGridFile(path string) ([]Word, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ws, err := TextGrid(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return ws, nil
}

// TextGrid returns the intervals of tier "words" of a Praat TextGrid in
// the short or the long text format (whose values come in the same order
// once the long format's names are left out).
func TextGrid(r io.Reader) ([]Word, error) {
	var vals []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasSuffix(line, ":") {
			continue
		}
		if i := strings.LastIndex(line, "= "); i >= 0 {
			line = strings.TrimSpace(line[i+2:])
		}
		vals = append(vals, strings.Trim(line, `"`))
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("align: %w", err)
	}
	for i := 0; i+4 < len(vals); i++ {
		if vals[i] != "IntervalTier" || !strings.EqualFold(vals[i+1], "words") {
			continue
		}
		n, err := strconv.Atoi(vals[i+4])
		if err != nil || n < 0 || n > (len(vals)-i-5)/3 {
			return nil, fmt.Errorf("align: tier words: bad interval count %q", vals[i+4])
		}
		out := make([]Word, 0, n)
		for k := 0; k < n; k++ {
			a, err1 := strconv.ParseFloat(vals[i+5+3*k], 64)
			b, err2 := strconv.ParseFloat(vals[i+6+3*k], 64)
			if err1 != nil || err2 != nil {
				return nil, fmt.Errorf("align: interval %d: %w", k, errors.Join(err1, err2))
			}
			out = append(out, Word{vals[i+7+3*k], a, b})
		}
		return out, nil
	}
	return nil, ErrNoWords
}

// XRAFile returns the annotations of tier TokensAlign of the SPPAS XRA
// file at path.
func XRAFile(path string) ([]Word, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	ws, err := XRA(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return ws, nil
}

// XRA returns the annotations of tier TokensAlign of a SPPAS XRA
// document, their tags joined by spaces.
func XRA(b []byte) ([]Word, error) {
	var doc struct {
		Tiers []struct {
			Name        string `xml:"tiername,attr"`
			Annotations []struct {
				Begin struct {
					Mid float64 `xml:"midpoint,attr"`
				} `xml:"Location>Interval>Begin"`
				End struct {
					Mid float64 `xml:"midpoint,attr"`
				} `xml:"Location>Interval>End"`
				Tags []string `xml:"Label>Tag"`
			} `xml:"Annotation"`
		} `xml:"Tier"`
	}
	if err := xml.NewDecoder(bytes.NewReader(b)).Decode(&doc); err != nil {
		return nil, fmt.Errorf("align: %w", err)
	}
	for _, t := range doc.Tiers {
		if t.Name != "TokensAlign" {
			continue
		}
		out := make([]Word, 0, len(t.Annotations))
		for _, a := range t.Annotations {
			out = append(out, Word{strings.Join(a.Tags, " "), a.Begin.Mid, a.End.Mid})
		}
		return out, nil
	}
	return nil, errors.New("align: no tier TokensAlign")
}

package align

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const shortGrid = `File type = "ooTextFile"
Object class = "TextGrid"

0
1.5
<exists>
1
"IntervalTier"
"words"
0
1.5
3
0
0.4
""
0.4
0.9
"hello"
0.9
1.5
"world"
`

const longGrid = `File type = "ooTextFile"
Object class = "TextGrid"

xmin = 0
xmax = 1.5
tiers? <exists>
size = 2
item []:
    item [1]:
        class = "IntervalTier"
        name = "phones"
        xmin = 0
        xmax = 1.5
        intervals: size = 1
        intervals [1]:
            xmin = 0
            xmax = 1.5
            text = "HH"
    item [2]:
        class = "IntervalTier"
        name = "words"
        xmin = 0
        xmax = 1.5
        intervals: size = 2
        intervals [1]:
            xmin = 0
            xmax = 0.4
            text = ""
        intervals [2]:
            xmin = 0.4
            xmax = 1.5
            text = "hello"
`

const xra = `<?xml version="1.0" encoding="UTF-8"?>
<Document><Tier id="t1" tiername="Tokens"><Annotation><Location><Interval><Begin midpoint="0"/><End midpoint="1"/></Interval></Location><Label><Tag>x</Tag></Label></Annotation></Tier>
<Tier id="t2" tiername="TokensAlign">
<Annotation><Location><Interval><Begin midpoint="0.1"/><End midpoint="0.35"/></Interval></Location><Label><Tag>euh</Tag></Label></Annotation>
<Annotation><Location><Interval><Begin midpoint="0.35"/><End midpoint="0.8"/></Interval></Location><Label><Tag>bon</Tag><Tag>jour</Tag></Label></Annotation>
</Tier></Document>`

func TestTextGrid(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []Word
		err      string
	}{
		{"short", shortGrid, []Word{{"", 0, 0.4}, {"hello", 0.4, 0.9}, {"world", 0.9, 1.5}}, ""},
		{"long, words the second tier", longGrid, []Word{{"", 0, 0.4}, {"hello", 0.4, 1.5}}, ""},
		{"no words tier", strings.Replace(shortGrid, `"words"`, `"phones"`, 1), nil, "no word tier"},
		{"count past the end", strings.Replace(shortGrid, "\n3\n", "\n30\n", 1), nil, "bad interval count"},
		{"bad time", strings.Replace(shortGrid, "0.9\n\"hello\"", "x\n\"hello\"", 1), nil, "interval 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := TextGrid(strings.NewReader(tc.in))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
	if _, err := TextGrid(strings.NewReader("")); !errors.Is(err, ErrNoWords) {
		t.Errorf("empty: %v, want ErrNoWords", err)
	}
}

func TestXRA(t *testing.T) {
	got, err := XRA([]byte(xra))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]Word{{"euh", 0.1, 0.35}, {"bon jour", 0.35, 0.8}}, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if _, err := XRA([]byte(strings.Replace(xra, "TokensAlign", "Other", 1))); err == nil || !strings.Contains(err.Error(), "no tier TokensAlign") {
		t.Errorf("no TokensAlign: %v", err)
	}
	if _, err := XRA([]byte("<Document><Tier")); err == nil {
		t.Error("truncated XML: no error")
	}
}

// FuzzTextGrid: any input gives words or an error, never a panic, and
// every word's times are numbers it read.
func FuzzTextGrid(f *testing.F) {
	f.Add(shortGrid)
	f.Add(longGrid)
	f.Add("\"IntervalTier\"\n\"words\"\n0\n1\n-1\n")
	f.Add("\"IntervalTier\"\n\"words\"\n0\n1\n99999999999999999999\n")
	f.Fuzz(func(t *testing.T, s string) {
		ws, err := TextGrid(strings.NewReader(s))
		if err == nil && ws == nil {
			t.Fatal("no words and no error")
		}
	})
}

// FuzzXRA: any input gives words or an error, never a panic.
func FuzzXRA(f *testing.F) {
	f.Add([]byte(xra))
	f.Add([]byte("<Document/>"))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = XRA(b)
	})
}

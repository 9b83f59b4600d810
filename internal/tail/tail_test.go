package tail

import "testing"

func TestLines(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"", 3, ""},
		{"one\n", 3, "one"},
		{"a\nb\nc\nd\n\n", 2, "c | d"},
		{"a\nb", 5, "a | b"},
	} {
		if got := Lines(tc.in, tc.n); got != tc.want {
			t.Errorf("Lines(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}

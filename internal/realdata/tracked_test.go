package realdata

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// fetched matches the files that came from public repositories and were
// taken out of the tree: they live in the real material's folder only.
// (A reference made here from such a file, as silero's, may stay.)
var fetched = regexp.MustCompile(`(jfk_inaugural|librispeech_5703|picovoice_leopard|vibe_ace|brahms_hungarian|en_mfa_|fr_cid_|apollo11)[^/]*\.(flac|wav|ogg|mp3|m4a)$|^testdata/recordings/.*(jfk|librispeech|picovoice).*\.(json|txt)$|^testdata/fillers/LICENSE\.`)

// TestFetchedMaterialNotTracked fails when git tracks one of those files
// again.
func TestFetchedMaterialNotTracked(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	out, err := exec.Command("git", "-C", Repo(t, "."), "ls-files").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	n := 0
	for _, f := range strings.Split(string(out), "\n") {
		n++
		if fetched.MatchString(f) {
			t.Errorf("%s is tracked: material from public repositories belongs in %s, not in the repository", f, Var)
		}
	}
	if n < 100 {
		t.Fatalf("git ls-files listed %d files", n)
	}
}

func TestFetchedPattern(t *testing.T) {
	for name, want := range map[string]bool{
		"testdata/recordings/en_jfk_inaugural_11s.flac":                 true,
		"testdata/recordings/fr_picovoice_leopard_test_fr.words.json":   true,
		"testdata/fillers/en_mfa_um.flac":                               true,
		"testdata/fillers/LICENSE.MFA":                                  true,
		"testdata/fillers/en_mfa_um.labels":                             false,
		"testdata/fillers/split.txt":                                    false,
		"testdata/recordings/en_asterisk_allison_demo-instruct_73s.wav": false,
	} {
		if got := fetched.MatchString(name); got != want {
			t.Errorf("%s: matched %v, want %v", name, got, want)
		}
	}
}

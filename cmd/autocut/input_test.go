package main

import (
	"bytes"
	"context"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every command that reads a FILE refuses one it cannot read in the same
// words, before any engine or tool runs: never ffmpeg's text.
func TestBadInputs(t *testing.T) {
	dir := t.TempDir()
	noise := make([]byte, 5000)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range noise {
		noise[i] = byte(r.UintN(256))
	}
	noise[0], noise[1] = 'v', ')' // no magic number this package knows
	for name, b := range map[string][]byte{"noise.bin": noise, "empty.wav": nil} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "adir"), 0o755); err != nil {
		t.Fatal(err)
	}
	inputs := []struct {
		file string
		code int
		says string
	}{
		{"noise.bin", 1, "noise.bin starts with \"v)"},
		{"empty.wav", 1, "empty.wav is empty (0 bytes)"},
		{"adir", 1, "adir is a directory; give a media file"},
		{"missing.wav", 1, "missing.wav: no such file or directory"},
		{"-", 2, "reading from standard input is not supported; give a file"},
	}
	commands := [][]string{
		{"analyze"},
		{"transcribe"},
		{"transcribe", "--engine", "acoustic"},
		{"cut", "-o", filepath.Join(dir, "out.wav")},
		{"cut", "--transcribe", "-o", filepath.Join(dir, "out.wav")},
	}
	for _, cmd := range commands {
		for _, in := range inputs {
			t.Run(strings.Join(cmd, " ")+" "+in.file, func(t *testing.T) {
				var out, errb bytes.Buffer
				file := in.file
				if file != "-" {
					file = filepath.Join(dir, file)
				}
				code := run(context.Background(), append(append([]string{}, cmd...), file), &out, &errb)
				msg := errb.String()
				if code != in.code || !strings.Contains(msg, in.says) {
					t.Errorf("exit %d, stderr %q; want %d and %q", code, msg, in.code, in.says)
				}
				for _, bad := range []string{"ffmpeg", "exit status", "convert to 16 kHz", "read adir: read adir", "open -"} {
					if strings.Contains(msg, bad) {
						t.Errorf("stderr %q speaks of %q", msg, bad)
					}
				}
			})
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "out.wav")); err == nil {
		t.Error("cut wrote out.wav")
	}
}

// Bad flag values of transcribe exit 2, as every command's.
func TestTranscribeFlagValues(t *testing.T) {
	speech := writeToneWAV(t, [2]float64{1, 0.3})
	for _, tc := range []struct {
		args []string
		says string
		need string // engine that must be available, else skip
	}{
		{[]string{"--engine", "bogus"}, "--engine bogus: allowed whisper, pocketsphinx, acoustic", ""},
		{[]string{"--engine", "pocketsphinx", "--lang", "xx"}, `--lang xx: no engine here hears "xx": pocketsphinx has only an English model here`, "pocketsphinx"},
	} {
		var errb bytes.Buffer
		code := run(context.Background(), append(append([]string{"transcribe"}, tc.args...), speech), io.Discard, &errb)
		if tc.need != "" && strings.Contains(errb.String(), "transcription unavailable: "+tc.need) {
			t.Logf("%v: %s is not installed here", tc.args, tc.need)
			continue
		}
		if code != 2 || !strings.Contains(errb.String(), tc.says) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, errb.String(), tc.says)
		}
	}
}

// Messages name things as the user knows them: the file once per error,
// the flags as typed, never a temporary name.
func TestMessagesInUsersWords(t *testing.T) {
	dir := t.TempDir()
	flac := filepath.Join(dir, "x.flac")
	if err := os.WriteFile(flac, append([]byte("fLaC"), make([]byte, 600)...), 0o644); err != nil {
		t.Fatal(err)
	}
	quiet := writeToneWAV(t, [2]float64{1, 0.1}, [2]float64{1, 0}, [2]float64{1, 0.1})
	for _, tc := range []struct {
		name  string
		args  []string
		code  int
		says  string
		never []string
	}{
		{"the file named once by the CLI", []string{"analyze", "--decoder", "native", flac}, 1, `unsupported format: native decoder reads WAV and MP3; x.flac starts with "fLaC`, []string{"analyse", "x.flac: ", `"\"`}},
		{"cut names the flag", []string{"cut", "--threshold", "-10", quiet, "-o", filepath.Join(dir, "o.wav")}, 1, "(--threshold ", []string{"thresholdDb"}},
		{"analyze's warning names the flag", []string{"analyze", "--threshold", "-10", quiet}, 0, "warning: plan: all 3.000 s would be cut (--threshold ", []string{"thresholdDb"}},
		{"cut names the output directory", []string{"cut", quiet, "-o", "/proc/x.wav"}, 1, "cannot write in the output directory /proc: ", []string{".autocut-", "mkdir"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if strings.HasPrefix(tc.args[len(tc.args)-1], "/proc/") {
				if _, err := os.Stat("/proc/self"); err != nil {
					t.Skip("no /proc here")
				}
			}
			var errb bytes.Buffer
			code := run(context.Background(), tc.args, io.Discard, &errb)
			msg := errb.String()
			if code != tc.code || !strings.Contains(msg, tc.says) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, msg, tc.code, tc.says)
			}
			for _, s := range tc.never {
				if strings.Contains(msg, s) {
					t.Errorf("stderr %q says %q", msg, s)
				}
			}
		})
	}
}

// The README's command line and the help name every command and what
// each does that the user would otherwise not guess.
func TestDocsNameEveryCommand(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, cli, _ := strings.Cut(string(readme), "## Command line")
	cli, _, _ = strings.Cut(cli, "\n## ")
	for _, s := range []string{"autocut analyze", "autocut cut", "autocut transcribe", "autocut serve",
		"autocut models list|pull NAME|path NAME", "autocut version", "--timelines"} {
		if !strings.Contains(cli, s) {
			t.Errorf("README's Command line does not show %q", s)
		}
	}
	if !strings.Contains(usage, "list, pull or path") {
		t.Errorf("the usage does not name models path:\n%s", usage)
	}
	var help bytes.Buffer
	run(context.Background(), []string{"help", "cut"}, &help, io.Discard)
	for _, s := range []string{"constant 192 kb/s", "VBR V2", "(an error without it)"} {
		if !strings.Contains(help.String(), s) {
			t.Errorf("autocut help cut does not say %q", s)
		}
	}
}

package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestModelsCommand runs `autocut models` against a user cache directory of
// the test's own (no download: the download itself is tested in transcribe
// against a local server).
func TestModelsCommand(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	model := filepath.Join(cache, "autocut", "models", "ggml-base.en.bin")
	tests := []struct {
		name   string
		args   []string
		pulled bool
		code   int
		out    string
	}{
		{"list, nothing pulled", []string{"models", "list"}, false, 0, "base.en        142 MiB  not pulled"},
		{"path of a model not pulled", []string{"models", "path", "base.en"}, false, 1, "is not pulled (autocut models pull base.en)"},
		{"unknown model", []string{"models", "pull", "huge"}, false, 2, `unknown model "huge"`},
		{"no verb", []string{"models"}, false, 2, "need list, pull NAME or path NAME"},
		{"list, pulled", []string{"models", "list"}, true, 0, "base.en        142 MiB  " + model},
		{"path, pulled", []string{"models", "path", "base.en"}, true, 0, model},
		{"--model not pulled", []string{"transcribe", "--model", "small", "x.wav"}, true, 1, "model small is not pulled"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			os.RemoveAll(filepath.Dir(model))
			if tc.pulled {
				os.MkdirAll(filepath.Dir(model), 0o755)
				os.WriteFile(model, []byte("model"), 0o644)
			}
			var out, errb bytes.Buffer
			code := run(context.Background(), tc.args, &out, &errb)
			if code != tc.code || !strings.Contains(out.String()+errb.String(), tc.out) {
				t.Errorf("exit %d (want %d), output %q %q, want %q", code, tc.code, out.String(), errb.String(), tc.out)
			}
		})
	}
}

// version asked for help prints its usage, as every command does; an
// argument is a mistake (exit 2), not ignored.
func TestVersionArguments(t *testing.T) {
	for _, tc := range []struct {
		args         []string
		code         int
		stdout, says string
	}{
		{[]string{"version", "-h"}, 0, "usage: autocut version\n", ""},
		{[]string{"version", "--help"}, 0, "usage: autocut version\n", ""},
		{[]string{"help", "version"}, 0, "usage: autocut version\n", ""},
		{[]string{"version", "extra"}, 2, "", "autocut version: unexpected extra: version takes no arguments\n"},
		{[]string{"--version", "--short"}, 2, "", "autocut version: unexpected --short: version takes no arguments\n"},
	} {
		var out, errb bytes.Buffer
		code := run(context.Background(), tc.args, &out, &errb)
		if code != tc.code {
			t.Errorf("%v: exit %d, want %d", tc.args, code, tc.code)
		}
		if diff := cmp.Diff(tc.stdout, out.String()); diff != "" {
			t.Errorf("%v: stdout (-want +got):\n%s", tc.args, diff)
		}
		if diff := cmp.Diff(tc.says, errb.String()); diff != "" {
			t.Errorf("%v: stderr (-want +got):\n%s", tc.args, diff)
		}
	}
}

// A model name the catalog lacks is refused in the command line's words:
// once "unknown model" for an argument, "--model NAME: allowed ..." for the
// flag (not the package's "models: unknown model" after "autocut models:").
func TestUnknownModelMessages(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	in := writeToneWAV(t, [2]float64{1, 0.3})
	known := "tiny, tiny.en, base, base.en, small, small.en, medium, medium.en, large-v3, large-v3-q5_0"
	for _, tc := range []struct {
		args []string
		says string
	}{
		{[]string{"models", "pull", "huge"}, "autocut models: unknown model \"huge\" (known: " + known + ")\n"},
		{[]string{"models", "path", "huge"}, "autocut models: unknown model \"huge\" (known: " + known + ")\n"},
		{[]string{"transcribe", "--model", "huge", in}, "autocut transcribe: --model huge: allowed " + known + "\n"},
		{[]string{"cut", "--transcribe", "--model", "huge", "-o", filepath.Join(t.TempDir(), "x.wav"), in}, "autocut cut: --model huge: allowed " + known + "\n"},
	} {
		var out, errb bytes.Buffer
		if code := run(context.Background(), tc.args, &out, &errb); code != 2 {
			t.Errorf("%v: exit %d, want 2", tc.args, code)
		}
		if diff := cmp.Diff(tc.says, errb.String()); diff != "" {
			t.Errorf("%v: stderr (-want +got):\n%s", tc.args, diff)
		}
	}
}

package transcribe

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The fake whisper-cli: the test binary itself, run with fakeWhisperVar
// naming a whisper.cpp full JSON (-ojf) file, plays whisper-cli: it writes
// that file where -of asks and the command line to fakeWhisperArgsVar's
// file when set. Tests point Whisper.CLI at os.Executable().
const (
	fakeWhisperVar     = "AUTOCUT_FAKE_WHISPER_JSON"
	fakeWhisperArgsVar = "AUTOCUT_FAKE_WHISPER_ARGS"
)

func TestMain(m *testing.M) {
	if src := os.Getenv(fakeWhisperVar); src != "" {
		os.Exit(fakeWhisperCLI(src, os.Args[1:]))
	}
	os.Exit(m.Run())
}

// fakeWhisperCLI replays src as whisper-cli's output for the command line
// args, and returns the exit status.
func fakeWhisperCLI(src string, args []string) int {
	out, in := "", ""
	for i := 0; i+1 < len(args); i++ {
		switch args[i] {
		case "-of":
			out = args[i+1]
		case "-f":
			in = args[i+1]
		}
	}
	if p := os.Getenv(fakeWhisperArgsVar); p != "" {
		os.WriteFile(p, []byte(strings.Join(args, " ")), 0o600)
	}
	if out == "" || in == "" {
		fmt.Fprintln(os.Stderr, "fake whisper-cli: -f and -of are required")
		return 2
	}
	if _, err := os.Stat(in); err != nil {
		fmt.Fprintln(os.Stderr, "fake whisper-cli:", err)
		return 1
	}
	b, err := os.ReadFile(src)
	if err == nil {
		err = os.WriteFile(out+".json", b, 0o600)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "fake whisper-cli:", err)
		return 1
	}
	return 0
}

// fakeWhisper returns a whisper engine whose whisper-cli replays doc (a
// whisper.cpp -ojf document), with a stand-in model file.
func fakeWhisper(t *testing.T, doc []byte) *Whisper {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(dir, "replay.json")
	model := filepath.Join(dir, "ggml-base.bin")
	for p, b := range map[string][]byte{src: doc, model: []byte("not a model")} {
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(fakeWhisperVar, src)
	return &Whisper{Model: model, CLI: exe}
}

// ojfDoc writes words as whisper.cpp's full JSON output with one word
// per segment (-ml 1 -sow -ojf): offsets in milliseconds, one token per
// word with the word's confidence as p, after a [_BEG_] token.
func ojfDoc(words []Word, lang string) []byte {
	type offsets struct {
		From int64 `json:"from"`
		To   int64 `json:"to"`
	}
	type token struct {
		Text    string  `json:"text"`
		Offsets offsets `json:"offsets"`
		ID      int     `json:"id"`
		P       float64 `json:"p"`
	}
	type segment struct {
		Offsets offsets `json:"offsets"`
		Text    string  `json:"text"`
		Tokens  []token `json:"tokens"`
	}
	doc := struct {
		Result        map[string]string `json:"result"`
		Transcription []segment         `json:"transcription"`
	}{Result: map[string]string{"language": lang}, Transcription: []segment{}}
	for _, w := range words {
		o := offsets{int64(w.Start*1000 + 0.5), int64(w.End*1000 + 0.5)}
		doc.Transcription = append(doc.Transcription, segment{Offsets: o, Text: " " + w.Word, Tokens: []token{
			{Text: "[_BEG_]", Offsets: offsets{o.From, o.From}, ID: 50364, P: 0.99},
			{Text: " " + w.Word, Offsets: o, ID: 1, P: w.Confidence},
		}})
	}
	b, err := json.Marshal(doc)
	if err != nil {
		panic(err) // a fixed struct of strings and numbers always marshals
	}
	return b
}

// readTimestamped reads a whisper-timestamped output (*.words.json):
// segments of words with start, end (s) and confidence.
func readTimestamped(path string) (words []Word, lang string, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, "", err
	}
	var doc struct {
		Language string `json:"language"`
		Segments []struct {
			Words []struct {
				Text       string  `json:"text"`
				Start      float64 `json:"start"`
				End        float64 `json:"end"`
				Confidence float64 `json:"confidence"`
			} `json:"words"`
		} `json:"segments"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, "", fmt.Errorf("%s: %w", path, err)
	}
	for _, s := range doc.Segments {
		for _, w := range s.Words {
			words = append(words, Word{Word: w.Text, Start: w.Start, End: w.End, Confidence: w.Confidence})
		}
	}
	return words, doc.Language, nil
}

// TestFakeWhisperCLI: the fake replays a document through the engine's
// whole path (conversion, command line, output file, parsing), and fails
// as whisper-cli would when its input is missing.
func TestFakeWhisperCLI(t *testing.T) {
	words := []Word{{"Bonjour", 0.1, 0.5, 0.9}, {"euh", 0.5, 0.9, 0.8}, {"ça", 0.9, 1.2, 0.95}}
	w := fakeWhisper(t, ojfDoc(words, "fr"))
	w.NoRefine = true
	args := filepath.Join(t.TempDir(), "args")
	t.Setenv(fakeWhisperArgsVar, args)
	in := sineWAV(t, 1.5)
	got, err := w.Transcribe(t.Context(), in, "fr", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Words) != 3 || got.Words[1].Start != 0.5 || got.Words[1].End != 0.9 || len(got.Fillers) != 1 || got.Fillers[0].Word != "euh" {
		t.Errorf("replayed transcript %+v", got)
	}
	a, err := os.ReadFile(args)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"-ml 1", "-sow", "-ojf", "-l fr", "--prompt " + whisperPrompts["fr"]} {
		if !strings.Contains(string(a), want) {
			t.Errorf("command line %q lacks %q", a, want)
		}
	}
	if _, err := w.Transcribe(t.Context(), filepath.Join(t.TempDir(), "none.wav"), "fr", nil); err == nil {
		t.Error("a missing input transcribed")
	}
}

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/autocut-dev/autocut/dsp"
)

// checkInput refuses, before any work, an input that is no file to read:
// standard input ("-", which autocut does not read: the decoders and the
// engines want a file they may read twice), a missing or unreadable path,
// and a directory.
func checkInput(in string) error {
	if in == "-" {
		return usageError{"FILE -: reading from standard input is not supported; give a file"}
	}
	f, err := os.Open(in)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if st.IsDir() {
		return fmt.Errorf("%s is a directory; give a media file", in)
	}
	return nil
}

// checkMedia is checkInput, then the decoders' look at the content
// (dsp.Probe, as analyze's decoding does): an empty file or one no known
// format starts with is refused in the words analyze uses, before an
// engine hands it to a tool that words it less well.
func checkMedia(ctx context.Context, in string) error {
	if err := checkInput(in); err != nil {
		return err
	}
	if _, err := dsp.Probe(ctx, in); err != nil {
		return err
	}
	return nil
}

// analysisError is the analysis's failure on in. Errors of the content
// (dsp.ErrUnsupportedFormat) name the file already; others get its path.
func analysisError(in string, err error) error {
	if errors.Is(err, dsp.ErrUnsupportedFormat) {
		return err
	}
	return fmt.Errorf("analyse %s: %w", in, err)
}

// flagWords rewords the planner's error for the command line: its
// parameters by the flags that set them (--threshold -38, not
// thresholdDb -38), the extra cuts by --transcribe's filler words.
func flagWords(err error) error {
	if err == nil {
		return nil
	}
	msg := strings.NewReplacer(
		"thresholdDb ", "--threshold ",
		"minSpeechMs ", "--min-speech ",
		"minSilenceSec ", "--min-silence ",
		"keepSilenceMs ", "--keep-silence ",
		"the cuts given", "the filler words cut (--transcribe)",
	).Replace(err.Error())
	return reworded{msg: msg, err: err}
}

// reworded is an error with a new message that still unwraps to the old.
type reworded struct {
	msg string
	err error
}

func (r reworded) Error() string { return r.msg }
func (r reworded) Unwrap() error { return r.err }

package main

import (
	"context"
	"fmt"
	"os"

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

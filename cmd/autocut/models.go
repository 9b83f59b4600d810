package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/autocut-dev/autocut/transcribe"
)

// runModels implements `autocut models list|pull NAME|path NAME`: the
// whisper.cpp models autocut can download into the user cache directory.
func runModels(ctx context.Context, e env) error {
	c := newFlags("models", "autocut models list | pull NAME | path NAME",
		"pull downloads a whisper.cpp model (ggml) into the user cache directory, checks its\n"+
			"published checksum and resumes an interrupted download; transcribe and cut then use it\n"+
			"(or --model NAME) with whisper-cli.")
	pos, err := c.parse(e.args, e.stdout)
	if err != nil {
		return err
	}
	st := &transcribe.ModelStore{}
	switch {
	case len(pos) == 1 && pos[0] == "list":
		for _, m := range transcribe.Models() {
			where := "not pulled"
			if p, ok := st.Installed(m.Name); ok {
				where = p
			}
			fmt.Fprintf(e.stdout, "%-14s %-8s %s\n", m.Name, m.Size, where)
		}
		return nil
	case len(pos) == 2 && pos[0] == "path":
		if _, err := st.Lookup(pos[1]); err != nil {
			return usageError{fmt.Sprintf("unknown model %q (known: %s)", pos[1], modelNames())}
		}
		p, ok := st.Installed(pos[1])
		if !ok {
			return fmt.Errorf("model %s is not pulled (autocut models pull %s)", pos[1], pos[1])
		}
		fmt.Fprintln(e.stdout, p)
		return nil
	case len(pos) == 2 && pos[0] == "pull":
		if _, err := st.Lookup(pos[1]); err != nil {
			return usageError{fmt.Sprintf("unknown model %q (known: %s)", pos[1], modelNames())}
		}
		bar := newProgressBar(e.stderr, e.stderrTTY)
		bar.stage("download")
		st.Progress = func(done, total int64) {
			if total > 0 {
				bar.update(float64(done) / float64(total))
			}
		}
		p, err := st.Pull(ctx, pos[1])
		bar.done()
		if err != nil {
			return err
		}
		fmt.Fprintln(e.stdout, p)
		return nil
	}
	return usageError{"need list, pull NAME or path NAME (autocut models -h)"}
}

// modelPath resolves --model NAME to the pulled model's file.
func modelPath(name string) (string, error) {
	st := &transcribe.ModelStore{}
	if _, err := st.Lookup(name); err != nil {
		return "", usageError{fmt.Sprintf("--model %s: allowed %s", name, modelNames())}
	}
	p, ok := st.Installed(name)
	if !ok {
		return "", fmt.Errorf("%w: model %s is not pulled (autocut models pull %s)", transcribe.ErrUnavailable, name, name)
	}
	return p, nil
}

// modelNames lists the catalog's models, for the messages that refuse a
// name (the transcribe package's own say "models: ..." after ours).
func modelNames() string {
	var names []string
	for _, m := range transcribe.Models() {
		names = append(names, m.Name)
	}
	return strings.Join(names, ", ")
}

// Command autocut removes silences and filler words from audio and video.
//
//	autocut serve      [flags]            run the v1 HTTP API server
//	autocut analyze    [flags] FILE       print loudness, levels and the cut plan as JSON
//	autocut cut        [flags] -o OUT FILE render the cut file (and timelines)
//	autocut transcribe [flags] FILE       print the transcript and fillers as JSON
//	autocut models list|pull NAME|path NAME  the whisper models in the user cache
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

const usage = `usage: autocut <command> [flags] [FILE]

commands:
  serve       run the v1 HTTP API server (default address :8080)
  analyze     print loudness, levels and the cut plan of FILE as JSON
  cut         render FILE without its silences (-o OUT), and timelines
  transcribe  print the transcript and filler words of FILE as JSON
  models      list or pull the whisper models (autocut models pull base.en)

Run 'autocut <command> -h' for a command's flags.
`

// env is what a subcommand may touch: its arguments and standard streams.
type env struct {
	args   []string
	stdout io.Writer
	stderr io.Writer
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run dispatches to a subcommand and returns the process exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	e := env{args: args[1:], stdout: stdout, stderr: stderr}
	var err error
	switch args[0] {
	case "serve":
		err = runServe(ctx, e)
	case "analyze":
		err = runAnalyze(ctx, e)
	case "cut":
		err = runCut(ctx, e)
	case "transcribe":
		err = runTranscribe(ctx, e)
	case "models":
		err = runModels(ctx, e)
	case "-h", "--help", "help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "autocut: unknown command %q\n\n%s", args[0], usage)
		return 2
	}
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	var ue usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(stderr, "autocut %s: %v\n", args[0], err)
		return 2
	}
	if err != nil {
		fmt.Fprintf(stderr, "autocut %s: %v\n", args[0], err)
		return 1
	}
	return 0
}

// usageError is a mistake in the command line (exit code 2).
type usageError struct{ msg string }

func (u usageError) Error() string { return u.msg }

// parseInterspersed parses flags that may stand before or after positional
// arguments ("autocut cut in.wav -o out.mp3"), returning the positionals.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if rest[0] == "--" {
			return append(pos, rest[1:]...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

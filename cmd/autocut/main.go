// Command autocut removes silences and filler words from audio and video.
//
//	autocut serve      [flags]                   run the v1 HTTP API server
//	autocut analyze    [flags] FILE              print loudness, levels and the cut plan as JSON
//	autocut cut        [flags] [-o OUT] FILE     render the cut file (and timelines)
//	autocut transcribe [flags] FILE              print the transcript and fillers as JSON
//	autocut models     list|pull NAME|path NAME  the whisper models in the user cache
//	autocut help       [command]                 print a command's flags
//	autocut version                              print the version
//
// The user's files are never harmed: cut refuses to write over its input
// (compared by identity, through symlinks and relative paths) and over any
// existing file unless -y is given, and writes every output under a
// temporary name in the target directory, renamed into place only when
// complete. Ctrl-C stops the work, removes the temporary files, prints
// "interrupted" and exits 130; a second Ctrl-C exits at once.
//
// Exit codes: 0 success, 1 failure, 2 a mistake in the command line, 130
// interrupted (SIGINT), 143 terminated (SIGTERM).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/term"
)

const usage = `usage: autocut <command> [flags] [FILE]

commands:
  serve       run the v1 HTTP API server (default address :8080)
  analyze     print loudness, levels and the cut plan of FILE as JSON
  cut         render FILE without its silences (to FILE-autocut or -o OUT), and timelines
  transcribe  print the transcript and filler words of FILE as JSON
  models      list, pull or path the whisper models (autocut models pull base.en)
  help        print a command's flags: autocut help cut
  version     print the version

Run 'autocut help <command>' for a command's flags.
`

// env is what a subcommand may touch: its arguments, standard streams and
// the list of temporary files to remove should the process be stopped.
type env struct {
	args      []string
	stdout    io.Writer
	stderr    io.Writer
	stdoutTTY bool // standard output is a terminal (no binary output there)
	stderrTTY bool // standard error is a terminal (progress bar, analyze's summary)
	cleanup   *cleanup
}

func main() {
	ctx, cancel := context.WithCancelCause(context.Background())
	cl := &cleanup{}
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		s := <-sigs
		cancel(signalError{s})
		// A second signal: do not wait for the work to wind down.
		s = <-sigs
		cl.run()
		fmt.Fprintln(os.Stderr, "\nautocut: interrupted")
		os.Exit(signalError{s}.exitCode())
	}()
	e := env{args: os.Args[1:], stdout: os.Stdout, stderr: os.Stderr,
		stdoutTTY: isTerminal(os.Stdout), stderrTTY: isTerminal(os.Stderr), cleanup: cl}
	os.Exit(dispatch(ctx, e))
}

// run dispatches to a subcommand with plain (non-terminal) streams and
// returns the process exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return dispatch(ctx, env{args: args, stdout: stdout, stderr: stderr, cleanup: &cleanup{}})
}

// dispatch runs the subcommand named by e.args[0] and returns the exit code.
func dispatch(ctx context.Context, e env) int {
	if len(e.args) == 0 {
		fmt.Fprint(e.stderr, usage)
		return 2
	}
	cmd, args := e.args[0], e.args[1:]
	switch cmd {
	case "-h", "-help", "--help":
		cmd, args = "help", nil
	case "-version", "--version":
		cmd = "version"
	}
	if cmd == "help" {
		if len(args) == 0 {
			fmt.Fprint(e.stdout, usage)
			return 0
		}
		if args[0] == "help" || args[0] == "version" {
			fmt.Fprintf(e.stdout, "usage: autocut %s\n", args[0])
			return 0
		}
		cmd, args = args[0], []string{"-h"}
	}
	e.args = args
	var err error
	switch cmd {
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
	case "version":
		switch {
		case len(args) == 0:
			fmt.Fprintln(e.stdout, version())
			return 0
		case args[0] == "-h" || args[0] == "-help" || args[0] == "--help":
			fmt.Fprintln(e.stdout, "usage: autocut version")
			return 0
		}
		err = usageError{fmt.Sprintf("unexpected %s: version takes no arguments", args[0])}
	default:
		fmt.Fprintf(e.stderr, "autocut: unknown command %q\n\n%s", cmd, usage)
		return 2
	}
	e.cleanup.run()
	var sig signalError
	if err != nil && errors.As(context.Cause(ctx), &sig) {
		// Whatever failed first (a child process also got the terminal's
		// Ctrl-C), the user stopped the work.
		fmt.Fprintln(e.stderr, "autocut:", sig.word())
		return sig.exitCode()
	}
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	var ue usageError
	var fe flagError
	if errors.As(err, &fe) {
		fmt.Fprintf(e.stderr, "autocut %s: %v\nRun 'autocut help %s' for its flags.\n", cmd, err, cmd)
		return 2
	}
	if errors.As(err, &ue) {
		fmt.Fprintf(e.stderr, "autocut %s: %v\n", cmd, err)
		return 2
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "autocut %s: %v\n", cmd, err)
		return 1
	}
	return 0
}

// usageError is a mistake in the command line (exit code 2).
type usageError struct{ msg string }

func (u usageError) Error() string { return u.msg }

// flagError is a mistake in the command line's shape (an unknown flag, a
// missing FILE): exit code 2 and a pointer to the command's help.
type flagError struct{ msg string }

func (f flagError) Error() string { return f.msg }

// signalError is the cause of the context's cancellation by a signal.
type signalError struct{ sig os.Signal }

func (s signalError) Error() string { return s.word() }

func (s signalError) word() string {
	if s.sig == syscall.SIGTERM {
		return "terminated"
	}
	return "interrupted"
}

// exitCode is the shell's convention for a process stopped by a signal.
func (s signalError) exitCode() int {
	if n, ok := s.sig.(syscall.Signal); ok {
		return 128 + int(n)
	}
	return 130
}

// cleanup holds the temporary files and directories to remove when the
// command ends or the process is stopped by a second signal.
type cleanup struct {
	mu    sync.Mutex
	paths []string
}

func (c *cleanup) add(path string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.paths = append(c.paths, path)
}

// run removes every path registered so far (os.RemoveAll: a directory goes
// with its content).
func (c *cleanup) run() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range c.paths {
		os.RemoveAll(p)
	}
	c.paths = nil
}

// version describes the binary from its build information: the module
// version, the VCS revision and time it was built from, and the toolchain.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "autocut (no build information)"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, at, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = ", modified"
			}
		}
	}
	out := "autocut " + v
	if rev != "" {
		out += fmt.Sprintf(" (revision %s, %s%s)", rev, at, dirty)
	}
	return strings.TrimSpace(out + " " + bi.GoVersion + " " + bi.Main.Path)
}

// isTerminal reports whether f is a terminal (not merely a character
// device: /dev/null is one too).
func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

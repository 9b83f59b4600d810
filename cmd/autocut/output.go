package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/autocut-dev/autocut/transcode"
)

// The user's files are sacred: no output may be the input, an existing file
// is replaced only with -y, and every file is written in a hidden staging
// directory beside its final place, moved there only when complete.

// overwriteFlags are -y and -n, as in ffmpeg.
type overwriteFlags struct{ yes, never bool }

func (o *overwriteFlags) register(c *cmdFlags) {
	c.BoolVar(&o.yes, "y", false, "overwrite existing output files")
	c.BoolVar(&o.never, "n", false, "never overwrite existing output files (the default; refuses to run if one exists)")
}

func (o overwriteFlags) check() error {
	if o.yes && o.never {
		return usageError{"-y and -n contradict each other"}
	}
	return nil
}

// formatForOutput returns the export format to write to out: --format when
// given, else the one out's extension names. An extension of no format is
// refused unless --format says what to write; an extension of another
// format than --format's is refused (no MP3 bytes under a .wav name).
func formatForOutput(out, format string) (string, error) {
	list := strings.Join(transcode.Formats(), ", ")
	if out == "-" {
		if format == "" {
			return "", usageError{fmt.Sprintf("-o - (standard output) needs --format: %s", list)}
		}
		return format, nil
	}
	ext := strings.ToLower(filepath.Ext(out))
	byExt := formatByExt(out)
	switch {
	case format == "" && byExt == "":
		what := fmt.Sprintf("autocut does not write %s files", ext)
		if ext == "" {
			what = "the name has no extension"
		}
		return "", usageError{fmt.Sprintf("-o %s: %s; name the output .mp3, .wav, .m4a or .mp4, or say what to write in it with --format (%s)", out, what, list)}
	case format == "":
		return byExt, nil
	case byExt != "" && byExt != transcode.ContainerOf(format):
		article := "a"
		if strings.HasPrefix(byExt, "m") { // "an mp3" ("em")
			article = "an"
		}
		return "", usageError{fmt.Sprintf("-o %s names %s %s file but --format is %s: name it %s", out, article, byExt, format,
			strings.TrimSuffix(out, filepath.Ext(out))+transcode.Ext(format))}
	}
	return format, nil
}

// formatByExt returns the format a file named name is written in, by its
// extension (.mp3, .wav, .m4a, .mp4 or .mov); "" for any other.
func formatByExt(name string) string {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".mp3":
		return "mp3"
	case ".wav":
		return "wav"
	case ".m4a":
		return "m4a"
	case ".mp4", ".mov":
		return "mp4"
	}
	return ""
}

// defaultOutput returns the output of cut without -o: the input's name
// with -autocut (transcode.OutputName), next to it, in the format asked or
// else the input's own (by its extension; an input of another kind needs
// -o or --format).
func defaultOutput(in, format string) (string, error) {
	if format == "" {
		if format = formatByExt(in); format == "" {
			what := fmt.Sprintf("autocut does not write %s files", strings.ToLower(filepath.Ext(in)))
			if filepath.Ext(in) == "" {
				what = "the name has no extension"
			}
			return "", usageError{fmt.Sprintf("%s: %s; name the output with -o (.mp3, .wav, .m4a or .mp4), or give --format (%s)",
				in, what, strings.Join(transcode.Formats(), ", "))}
		}
	}
	return filepath.Join(filepath.Dir(in), transcode.OutputName(filepath.Base(in), format)), nil
}

// outputCheck is what checkOutput found about a path to write.
type outputCheck struct {
	stream bool // an existing device or FIFO: written in place, no staging
}

// checkOutput refuses, before anything is opened for writing, an output
// that is the input (compared by identity: os.SameFile after following
// symlinks, whatever the spelling of the path), a directory, a missing
// directory, and an existing file without -y. Devices and FIFOs
// (/dev/null, a named pipe) are written in place.
func checkOutput(in, out string, ow overwriteFlags) (outputCheck, error) {
	if st, err := os.Stat(out); err == nil && !st.IsDir() && !st.Mode().IsRegular() && !same(in, out) {
		return outputCheck{stream: true}, nil
	}
	if err := checkPath(in, out, ow); err != nil {
		return outputCheck{}, err
	}
	dir := filepath.Dir(out)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return outputCheck{}, usageError{fmt.Sprintf("-o %s: directory %s does not exist", out, dir)}
	}
	return outputCheck{}, nil
}

// checkPath refuses to write path if it is the input, a directory, or an
// existing file (even a dangling symlink) without -y.
func checkPath(in, path string, ow overwriteFlags) error {
	if same(in, path) {
		return usageError{fmt.Sprintf("refusing to write %s: it is the input file %s", path, in)}
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return usageError{fmt.Sprintf("%s is a directory; name the output file", path)}
	}
	if _, err := os.Lstat(path); err == nil && !ow.yes {
		return existsError(path)
	}
	return nil
}

// same reports whether a and b are the same existing file.
func same(a, b string) bool {
	sa, err := os.Stat(a)
	if err != nil {
		return false
	}
	sb, err := os.Stat(b)
	return err == nil && os.SameFile(sa, sb)
}

// existsError is the refusal to replace an existing file (exit code 1, as
// ffmpeg -n).
func existsError(path string) error {
	return fmt.Errorf("%s exists; use -y to overwrite", path)
}

// distinct refuses two outputs with the same name (the render and a
// timeline, say).
func distinct(paths []string) error {
	seen := map[string]string{}
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			abs = p
		}
		if q, ok := seen[abs]; ok {
			return usageError{fmt.Sprintf("two outputs would be written to %s (%s and %s)", abs, q, p)}
		}
		seen[abs] = p
	}
	return nil
}

// stager writes outputs in a hidden directory (.autocut-*) created in each
// target directory, and moves each to its final name only when complete.
// The staging directories are registered for removal when the command ends
// or is interrupted; after a SIGKILL one may remain, holding the partial
// file, never under the final name.
type stager struct {
	cl        *cleanup
	overwrite bool
	dirs      map[string]string // target directory -> staging directory
}

func newStager(cl *cleanup, overwrite bool) *stager {
	return &stager{cl: cl, overwrite: overwrite, dirs: map[string]string{}}
}

// dir returns the staging directory for files that go to target.
func (s *stager) dir(target string) (string, error) {
	if d, ok := s.dirs[target]; ok {
		return d, nil
	}
	d, err := os.MkdirTemp(target, ".autocut-")
	if err != nil {
		// Not the staging directory's name: the user never named it.
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return "", fmt.Errorf("cannot write in the output directory %s: %w", target, err)
	}
	s.cl.add(d)
	s.dirs[target] = d
	return d, nil
}

// path returns where to write the file that will be final.
func (s *stager) path(final string) (string, error) {
	d, err := s.dir(filepath.Dir(final))
	if err != nil {
		return "", err
	}
	return filepath.Join(d, filepath.Base(final)), nil
}

// commit syncs the staged file to disk and moves it to final. Without -y
// it hard-links it there, which fails if final exists, so that a file
// created since the checks is not replaced either; where the file system
// has no hard links, it checks and renames.
func (s *stager) commit(staged, final string) error {
	if f, err := os.Open(staged); err == nil {
		err = f.Sync()
		f.Close()
		if err != nil {
			return fmt.Errorf("write %s: %w", final, err)
		}
	}
	if s.overwrite {
		// The file replaced keeps its permissions, as sed -i does (a new
		// file gets the umask's).
		if st, err := os.Stat(final); err == nil && st.Mode().IsRegular() {
			_ = os.Chmod(staged, st.Mode().Perm())
		}
		if err := os.Rename(staged, final); err != nil {
			return fmt.Errorf("write %s: %w", final, err)
		}
	} else {
		err := os.Link(staged, final)
		switch {
		case errors.Is(err, os.ErrExist):
			return existsError(final)
		case err != nil && !errors.Is(err, syscall.EPERM) && !errors.Is(err, syscall.ENOTSUP) && !errors.Is(err, syscall.EXDEV):
			return fmt.Errorf("write %s: %w", final, err)
		case err != nil:
			if _, err := os.Lstat(final); err == nil {
				return existsError(final)
			}
			if err := os.Rename(staged, final); err != nil {
				return fmt.Errorf("write %s: %w", final, err)
			}
		default:
			os.Remove(staged)
		}
	}
	if d, err := os.Open(filepath.Dir(final)); err == nil {
		d.Sync() // the new name, durable (best effort: not every system syncs directories)
		d.Close()
	}
	return nil
}

// close removes the staging directories (empty once every file is committed).
func (s *stager) close() {
	dirs := make([]string, 0, len(s.dirs))
	for _, d := range s.dirs {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	for _, d := range dirs {
		os.RemoveAll(d)
	}
}

package main

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/timeline"
)

// timelineFlags are the timeline export flags shared by analyze and cut.
type timelineFlags struct {
	kinds, dir, rate, mediaPath, fcpxmlVersion string
	dropFrame                                  bool
}

func (t *timelineFlags) register(c *cmdFlags, dirDefault string) {
	kinds := make([]string, 0, len(timeline.Kinds()))
	for _, k := range timeline.Kinds() {
		kinds = append(kinds, string(k))
	}
	rates := make([]string, 0, len(timeline.AudioRates()))
	for _, r := range timeline.AudioRates() {
		rates = append(rates, strconv.FormatFloat(math.Round(r.Float()*1000)/1000, 'f', -1, 64))
	}
	c.StringVar(&t.kinds, "timelines", "", "timeline `kinds` to write: "+strings.Join(kinds, ",")+" (or all)")
	c.StringVar(&t.dir, "timeline-dir", "", "`directory` for timeline files, named <input name>-autocut.<ext> (default: "+dirDefault+")")
	c.StringVar(&t.rate, "timeline-rate", "30", "edit `rate` for audio-only inputs: "+strings.Join(rates, ", ")+" (or any rate such as 30000/1001)")
	c.StringVar(&t.mediaPath, "timeline-media-path", "", "`path` of the original on the editing machine (default: the input's absolute path, written as a file:// URL)")
	c.StringVar(&t.fcpxmlVersion, "fcpxml-version", timeline.DefaultFCPXMLVersion, "FCPXML `version`: "+strings.Join(timeline.FCPXMLVersions(), ", "))
	c.BoolVar(&t.dropFrame, "drop-frame", false, "drop-frame timecode in EDLs and XML (29.97 and 59.94 only)")
}

// check validates the flags before any work is done and returns the
// timeline files' paths (EDLs past 999 events add -partN files, whose
// number is known only from the plan).
func (t *timelineFlags) check(inputPath, dir string) ([]string, error) {
	if _, err := timeline.ParseRate(t.rate); err != nil {
		return nil, usageError{fmt.Sprintf("--timeline-rate %s: %v", t.rate, err)}
	}
	if !slices.Contains(timeline.FCPXMLVersions(), t.fcpxmlVersion) {
		return nil, usageError{fmt.Sprintf("--fcpxml-version %s: allowed %s", t.fcpxmlVersion, strings.Join(timeline.FCPXMLVersions(), ", "))}
	}
	if t.kinds == "" {
		return nil, nil
	}
	kinds, err := timeline.ParseKinds(t.kinds)
	if err != nil {
		return nil, usageError{fmt.Sprintf("--timelines %s: %v", t.kinds, err)}
	}
	if t.dir != "" {
		dir = t.dir
	}
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return nil, usageError{fmt.Sprintf("--timeline-dir %s is not a directory", dir)}
	}
	stem := stemOf(inputPath)
	var paths []string
	for _, k := range kinds {
		paths = append(paths, filepath.Join(dir, stem+"-autocut"+k.Ext()))
	}
	return paths, nil
}

// trackEDLs are the EDLs of tracks 2 to n of a recording of n tracks
// (timeline.WriteFilesTracks writes one per track), when --timelines asks
// for EDL: <stem>-autocut-trackN.edl in dir (or --timeline-dir).
func (t *timelineFlags) trackEDLs(inputPath, dir string, n int) []string {
	if n < 2 || t.kinds == "" {
		return nil
	}
	kinds, err := timeline.ParseKinds(t.kinds)
	if err != nil || !slices.Contains(kinds, timeline.EDL) {
		return nil
	}
	if t.dir != "" {
		dir = t.dir
	}
	var paths []string
	for k := 2; k <= n; k++ {
		paths = append(paths, filepath.Join(dir, fmt.Sprintf("%s-autocut-track%d%s", stemOf(inputPath), k, timeline.EDL.Ext())))
	}
	return paths
}

// validate refuses, before any work, timelines that cannot be written for
// the input info describes (dsp.Probe's, whose duration stands for the
// edit): --drop-frame at a rate without drop-frame timecode, a kind named
// that cannot state the edit rate, an input shorter than one frame (exit
// 1). The rate of an audio-only input is --timeline-rate's, a mistake in
// the command line (exit 2); a video's is its own (exit 1).
// With --timelines all, only what no kind can write is refused (a kind
// that cannot state the rate is left out later, with a warning).
func (t *timelineFlags) validate(info dsp.Info) error {
	if t.kinds == "" || !(info.Duration > 0) || math.IsInf(info.Duration, 0) {
		return nil
	}
	kinds, err := timeline.ParseKinds(t.kinds)
	if err != nil {
		return nil // check reported it
	}
	if t.all() {
		kinds = []timeline.Kind{timeline.CSV} // states any rate: its refusal is the options'
	}
	rate, _ := timeline.ParseRate(t.rate)
	m := timeline.MediaFromInfo(info, info.Name)
	o := timeline.Options{Rate: rate, FCPXMLVersion: t.fcpxmlVersion, DropFrame: t.dropFrame}
	whole := []dsp.Range{{Start: 0, End: info.Duration}}
	for _, k := range kinds {
		err := timeline.Check(k, whole, m, o)
		if errors.Is(err, timeline.ErrNoWholeFrame) {
			// The kept ranges lie within the input: none can hold a frame.
			return fmt.Errorf("--timelines %s: %s lasts %.3f s, not one whole frame at %s fps: %w",
				t.kinds, info.Name, info.Duration, fps(m, rate), err)
		}
		if !errors.Is(err, timeline.ErrInvalidOptions) {
			continue
		}
		why := strings.TrimPrefix(err.Error(), timeline.ErrInvalidOptions.Error()+": ")
		if m.HasVideo {
			return fmt.Errorf("--timelines %s: %w", t.kinds, err)
		}
		flags := fmt.Sprintf("--timelines %s --timeline-rate %s", t.kinds, t.rate)
		if t.dropFrame {
			flags += " --drop-frame"
		}
		return usageError{fmt.Sprintf("%s: %s", flags, why)}
	}
	return nil
}

// stage makes the staging directory of the timelines in dir (or
// --timeline-dir) before any work, so that a directory autocut cannot
// write in fails at once. A directory still to be created is made (and
// staged) only when the timelines are written.
func (t *timelineFlags) stage(st *stager, dir string) error {
	if t.kinds == "" {
		return nil
	}
	if t.dir != "" {
		dir = t.dir
	}
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil // made when the timelines are written
	case err != nil: // a file on the way ("not a directory")
		return fmt.Errorf("cannot write in the timeline directory %s: %w", dir, err)
	case !fi.IsDir():
		return fmt.Errorf("cannot write in the timeline directory %s: it is a file", dir)
	}
	_, err = st.dir(dir)
	return err
}

// fps is the edit rate of media m in frames per second (3 decimals): the
// video's own, else rate (--timeline-rate, 30 when zero).
func fps(m timeline.Media, rate dsp.Rational) string {
	if m.HasVideo {
		rate = m.FrameRate
	}
	if rate.Num <= 0 || rate.Den <= 0 {
		rate = dsp.Rational{Num: 30, Den: 1}
	}
	return strconv.FormatFloat(math.Round(rate.Float()*1000)/1000, 'f', -1, 64)
}

// all reports whether --timelines asks for every kind.
func (t *timelineFlags) all() bool { return strings.TrimSpace(t.kinds) == "all" }

func stemOf(path string) string {
	name := filepath.Base(path)
	return strings.TrimSuffix(name, filepath.Ext(name))
}

// write writes the asked timelines for the kept ranges into dir (or
// --timeline-dir) through the stager and returns their paths. With
// --timelines all, a kind that cannot state this edit (Premiere XML and
// EDL at 12.5 fps) is left out with a warning to warn; a kind named is
// written or refused.
func (t *timelineFlags) write(st *stager, dir, inputPath string, keep []dsp.Range, info dsp.Info, warn func(error)) ([]string, error) {
	return t.writeTracks(st, dir, []dsp.TrackRef{{Path: inputPath, Channel: -1}}, keep, []dsp.Info{info}, warn)
}

// writeTracks is write for a recording of several tracks (refs, each
// analysed as infos says; timeline.WriteFilesTracks): one timeline of N
// audio tracks cut alike per kind, named after the first track's file,
// and an EDL per track. Each track's media is its file; the tracks of one
// file (--tracks streams|channels) all name that file, their clips named
// after the stream or channel. --timeline-media-path names the one file
// of such a recording; with several files it is refused (checkTracks).
func (t *timelineFlags) writeTracks(st *stager, dir string, refs []dsp.TrackRef, keep []dsp.Range, infos []dsp.Info, warn func(error)) ([]string, error) {
	if t.kinds == "" {
		return nil, nil
	}
	if len(refs) == 0 || len(refs) != len(infos) {
		return nil, fmt.Errorf("timelines: %d tracks and %d analyses", len(refs), len(infos))
	}
	kinds, err := timeline.ParseKinds(t.kinds)
	if err != nil {
		return nil, usageError{err.Error()}
	}
	rate, err := timeline.ParseRate(t.rate)
	if err != nil {
		return nil, usageError{err.Error()}
	}
	if t.dir != "" {
		dir = t.dir
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	inputPath := refs[0].Path
	oneFile := len(refs) > 1 // the tracks are the streams or channels of one file
	for _, r := range refs {
		oneFile = oneFile && r.Path == inputPath
	}
	media := make([]timeline.Media, len(refs))
	for k, r := range refs {
		mediaPath := t.mediaPath
		if mediaPath == "" || r.Path != inputPath {
			// The input's absolute path: the timelines hold it as a file://
			// URL (the EDL as a path), which the editor opens wherever the
			// timeline is moved on this machine.
			abs, err := filepath.Abs(r.Path)
			if err != nil {
				return nil, fmt.Errorf("the input's absolute path: %w", err)
			}
			mediaPath = abs
		}
		info := infos[k]
		info.Name = filepath.Base(r.Path)
		media[k] = timeline.MediaFromInfo(info, mediaPath)
		if oneFile {
			media[k].Name = stemOf(r.Path) + strings.TrimPrefix(r.String(), filepath.Base(r.Path))
			media[k].Stream = r.Stream + 1
			if r.Channel >= 0 {
				media[k].Channel = r.Channel + 1
			}
		}
	}
	o := timeline.Options{Rate: rate, FCPXMLVersion: t.fcpxmlVersion, DropFrame: t.dropFrame}
	if t.all() {
		// An option no kind can honour (--drop-frame at 25 fps) is an
		// error, not a warning for each kind left out.
		if err := timeline.CheckTracks(timeline.CSV, keep, media, o); errors.Is(err, timeline.ErrInvalidOptions) {
			return nil, err
		}
		var ok []timeline.Kind
		for _, k := range kinds {
			if err := timeline.CheckTracks(k, keep, media, o); errors.Is(err, timeline.ErrInvalidOptions) {
				warn(fmt.Errorf("--timelines all: left out %s", strings.TrimPrefix(err.Error(), timeline.ErrInvalidOptions.Error()+": ")))
				continue
			}
			ok = append(ok, k)
		}
		kinds = ok
	}
	stage, err := st.dir(dir)
	if err != nil {
		return nil, err
	}
	staged, err := timeline.WriteFilesTracks(stage, stemOf(inputPath), kinds, keep, media, o)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, s := range staged {
		final := filepath.Join(dir, filepath.Base(s))
		for _, r := range refs {
			if same(r.Path, final) {
				return files, fmt.Errorf("refusing to write %s: it is the input file %s", final, r.Path)
			}
		}
		if err := st.commit(s, final); err != nil {
			return files, err
		}
		files = append(files, final)
	}
	return files, nil
}

package timeline

import (
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/autocut-dev/autocut/dsp"
)

// ErrInvalidOptions reports timeline options that cannot be honoured (an
// unknown kind or version, drop-frame at a rate that has none, an edit rate
// ParseRate would refuse, Premiere XML or an EDL at a rate they cannot
// state) or media and kept ranges that are not times (a media duration not
// over 0, a NaN or infinite range).
var ErrInvalidOptions = errors.New("invalid timeline options")

// ErrTooManyEvents reports an EDL past CMX 3600's 999 events; WriteFiles
// splits such an EDL into several files (-part2, ...) instead.
var ErrTooManyEvents = errors.New("more than 999 EDL events")

// ErrNoWholeFrame reports kept ranges that hold no whole frame at the
// timeline's rate (plan.ErrNothingToKeep is the same verdict on the plan).
var ErrNoWholeFrame = errors.New("no kept range spans a whole frame")

// Kind is a timeline format.
type Kind string

// Timeline formats.
const (
	FCPXML   Kind = "fcpxml"
	Premiere Kind = "premiere"
	EDL      Kind = "edl"
	OTIO     Kind = "otio"
	CSV      Kind = "csv"
)

// kindTable is the one list of timeline formats: each one's file
// extension and content type, in the documented order.
var kindTable = [...]struct {
	kind             Kind
	ext, contentType string
}{
	{FCPXML, ".fcpxml", "application/xml; charset=utf-8"},
	{Premiere, ".xml", "application/xml; charset=utf-8"},
	{EDL, ".edl", "text/plain; charset=utf-8"},
	{OTIO, ".otio", "application/json"},
	{CSV, ".csv", "text/csv; charset=utf-8"},
}

// Kinds returns every format, in a stable order: fcpxml, premiere, edl,
// otio, csv.
func Kinds() []Kind {
	out := make([]Kind, len(kindTable))
	for i, r := range kindTable {
		out[i] = r.kind
	}
	return out
}

// ParseKinds reads a comma-separated list such as "fcpxml,edl" ("all" for
// every kind); a kind named twice is listed once.
func ParseKinds(s string) ([]Kind, error) {
	if strings.TrimSpace(s) == "all" {
		return Kinds(), nil
	}
	var out []Kind
	for _, f := range strings.Split(s, ",") {
		k := Kind(strings.ToLower(strings.TrimSpace(f)))
		if k == "" {
			continue
		}
		if !k.Valid() {
			return nil, fmt.Errorf("%w: timeline %q (allowed %s)", ErrInvalidOptions, f, kindList())
		}
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out, nil
}

func kindList() string {
	names := make([]string, len(kindTable))
	for i, r := range kindTable {
		names[i] = string(r.kind)
	}
	return strings.Join(names, ", ")
}

// Valid reports whether k is one of Kinds.
func (k Kind) Valid() bool { return k.Ext() != "" }

// Ext returns the file extension of the format ("" for an unknown kind).
func (k Kind) Ext() string {
	for _, r := range kindTable {
		if r.kind == k {
			return r.ext
		}
	}
	return ""
}

// ContentType returns the MIME type of the format ("" for an unknown kind).
func (k Kind) ContentType() string {
	for _, r := range kindTable {
		if r.kind == k {
			return r.contentType
		}
	}
	return ""
}

// Media is what a timeline says about the source.
type Media struct {
	Name          string       // clip name: the file name without extension
	File          string       // file name with extension
	Path          string       // where the editor finds the media (absolute path, relative to the timeline, or URL)
	Duration      float64      // seconds
	SampleRate    int          // audio rate, Hz
	Channels      int          // audio channels
	HasVideo      bool         // video+audio source
	FrameRate     dsp.Rational // the video's exact rate
	VideoFrames   int64        // the picture's length in frames (0: unknown, Duration at FrameRate)
	Width, Height int          // the video's frame size in pixels (0: unknown, written as 1920x1080)
	StartTimecode float64      // source start timecode, seconds
	// Stream and Channel say which part of File a track is when the
	// tracks are the streams or channels of one file: the audio stream,
	// from 1, and its channel, from 1 (0: the whole file's audio, all
	// the stream's channels). Premiere XML and OpenTimelineIO name them.
	Stream, Channel int
}

// MediaFromInfo describes a decoded input; mediaPath is where the editor
// finds it ("" means the input's file name): a path, or a URL (a file URL
// is taken as its path).
func MediaFromInfo(info dsp.Info, mediaPath string) Media {
	if mediaPath == "" {
		mediaPath = info.Name
	}
	if p, ok := filePathOfURL(mediaPath); ok {
		mediaPath = p
	}
	file := filepath.Base(mediaPath)
	if windowsPath(mediaPath) {
		file = mediaPath[strings.LastIndexAny(mediaPath, `\/`)+1:]
	} else if u, ok := mediaURL(mediaPath); ok {
		file = path.Base(u.Path)
	}
	return Media{
		Name: strings.TrimSuffix(file, filepath.Ext(file)), File: file, Path: mediaPath,
		Duration: info.Duration, SampleRate: info.SampleRate, Channels: info.Channels,
		HasVideo: info.Type == "video" && info.FrameRate.Num > 0, FrameRate: info.FrameRate, StartTimecode: info.StartTimecode,
		Width: info.Width, Height: info.Height, VideoFrames: info.VideoFrames,
	}
}

// Options are the choices of a timeline export.
type Options struct {
	// Rate is the edit rate for audio-only sources (the zero value: 30),
	// from MinRate to MaxRate (ParseRate); a video source always uses its
	// own frame rate.
	Rate dsp.Rational
	// FCPXMLVersion is one of FCPXMLVersions ("" is DefaultFCPXMLVersion).
	FCPXMLVersion string
	// DropFrame writes drop-frame timecode (29.97 and 59.94 only).
	DropFrame bool
	// Title names the sequence (default: "<media name> (cut)").
	Title string
	// EDLTrack is the track, from 1, whose event list WriteTracks writes
	// as an EDL (0: the first); WriteFilesTracks writes every track's.
	EDLTrack int
}

// MaxTracks is the most tracks a timeline carries.
const MaxTracks = 16

// AudioRates returns the edit rates offered for audio-only sources:
// 23.976, 24, 25, 29.97, 30, 50, 59.94 and 60.
func AudioRates() []dsp.Rational {
	return []dsp.Rational{{Num: 24000, Den: 1001}, {Num: 24, Den: 1}, {Num: 25, Den: 1}, {Num: 30000, Den: 1001},
		{Num: 30, Den: 1}, {Num: 50, Den: 1}, {Num: 60000, Den: 1001}, {Num: 60, Den: 1}}
}

// Frame rates ParseRate accepts, in frames per second.
const (
	MinRate = 1
	MaxRate = 240
)

// ParseRate reads an edit rate between MinRate and MaxRate: an integer
// ("25"), a ratio ("30000/1001", kept as written) or a decimal ("29.97",
// "12.5"). Decimals within 0.006 of an NTSC rate (23.976, 29.97, 47.952,
// 59.94, 119.88) are that exact ratio; other decimals are thousandths.
func ParseRate(s string) (dsp.Rational, error) {
	bad := fmt.Errorf("%w: rate %q: want a frame rate from %d to %d such as 25, 29.97 or 30000/1001", ErrInvalidOptions, s, MinRate, MaxRate)
	if n, d, ok := strings.Cut(s, "/"); ok {
		num, err1 := strconv.ParseInt(n, 10, 64)
		den, err2 := strconv.ParseInt(d, 10, 64)
		if err1 != nil || err2 != nil || num <= 0 || den <= 0 {
			return dsp.Rational{}, bad
		}
		r := dsp.Rational{Num: num, Den: den}
		if !rateOK(r) {
			return dsp.Rational{}, bad
		}
		return r, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || !(f >= MinRate && f <= MaxRate) {
		return dsp.Rational{}, bad
	}
	for _, ntsc := range []int64{24, 30, 48, 60, 120} {
		if math.Abs(f-float64(ntsc*1000)/1001) < 0.006 {
			return dsp.Rational{Num: ntsc * 1000, Den: 1001}, nil
		}
	}
	if f == math.Trunc(f) {
		return dsp.Rational{Num: int64(f), Den: 1}, nil
	}
	return dsp.Rational{Num: int64(math.Round(f * 1000)), Den: 1000}, nil
}

// rateOK reports whether r is a rate ParseRate accepts: a positive ratio
// from MinRate to MaxRate frames per second.
func rateOK(r dsp.Rational) bool {
	f := r.Float()
	return r.Num > 0 && r.Den > 0 && f >= MinRate && f <= MaxRate
}

// edit is what every writer works from: the same frame list, rate and media.
type edit struct {
	m     Media // the first track's media (the video's, for a video)
	o     Options
	rate  dsp.Rational
	fps   int64 // nominal frames per second (30 for 29.97)
	drop  bool
	segs  []Segment // the cut, to the longest track's end
	last  int64     // the first track's length in whole frames
	tc    int64     // the first track's start timecode in frames
	title string
	// tracks are the recording's tracks, the first one m: each is cut
	// alike, ending at its own media's end.
	tracks []track
}

// track is one track of the recording: its media, its length and start
// timecode in frames, and the cut's segments that lie within it (the
// edit's, up to its end).
type track struct {
	m    Media
	last int64
	tc   int64
	segs []Segment
}

func newEdit(keep []dsp.Range, m Media, o Options) (*edit, error) {
	return newTracksEdit(keep, []Media{m}, o)
}

// newTracksEdit is the edit of a recording of several tracks, aligned from
// 0, all cut alike: the first is the video for a video source (the
// others' video is not used) and names the timeline.
func newTracksEdit(keep []dsp.Range, tracks []Media, o Options) (*edit, error) {
	if len(tracks) == 0 || len(tracks) > MaxTracks {
		return nil, fmt.Errorf("%w: %d tracks: want 1 to %d", ErrInvalidOptions, len(tracks), MaxTracks)
	}
	m := tracks[0]
	rate := o.Rate
	if m.HasVideo {
		rate = m.FrameRate
	} else if rate != (dsp.Rational{}) && !rateOK(rate) {
		return nil, fmt.Errorf("%w: rate %s: want a frame rate from %d to %d such as 25, 29.97 or 30000/1001", ErrInvalidOptions, rate, MinRate, MaxRate)
	}
	for i, t := range tracks {
		if !(t.Duration > 0) || math.IsInf(t.Duration, 0) {
			if len(tracks) == 1 {
				return nil, fmt.Errorf("%w: media duration %v s: want a positive length", ErrInvalidOptions, t.Duration)
			}
			return nil, fmt.Errorf("%w: track %d (%s): media duration %v s: want a positive length", ErrInvalidOptions, i+1, t.File, t.Duration)
		}
	}
	if o.EDLTrack < 0 || o.EDLTrack > len(tracks) {
		return nil, fmt.Errorf("%w: EDL track %d of %d tracks", ErrInvalidOptions, o.EDLTrack, len(tracks))
	}
	for i, r := range keep {
		if math.IsNaN(r.Start) || math.IsNaN(r.End) || math.IsInf(r.Start, 0) || math.IsInf(r.End, 0) {
			return nil, fmt.Errorf("%w: kept range %d [%v, %v] is not a time range", ErrInvalidOptions, i, r.Start, r.End)
		}
	}
	if rate.Num <= 0 || rate.Den <= 0 {
		rate = dsp.Rational{Num: 30, Den: 1}
	}
	// In lowest terms: 60000/2002 is NTSC 29.97 and 50/2 is 25 for every
	// writer (xmeml's ntsc flag, drop-frame and FCP's format names look at
	// the reduced ratio).
	if g := gcd(rate.Num, rate.Den); g > 1 {
		rate = dsp.Rational{Num: rate.Num / g, Den: rate.Den / g}
	}
	e := &edit{m: m, o: o, rate: rate, fps: int64(math.Round(rate.Float()))}
	if o.DropFrame {
		if rate.Den != 1001 || (e.fps != 30 && e.fps != 60) {
			return nil, fmt.Errorf("%w: drop-frame timecode exists only at 29.97 and 59.94, not %s", ErrInvalidOptions, rate)
		}
		e.drop = true
	}
	// Each track's extent in whole frames: a video's picture (its audio,
	// which Duration is when it was decoded, may run on a frame or two;
	// the picture's frames are at rate, its own), else the media's
	// duration. The cut runs to the longest one's end.
	e.tracks = make([]track, len(tracks))
	var longest int64
	for i, t := range tracks {
		if i > 0 {
			t.HasVideo = false // the first track's picture is the video
		}
		last := lastFrame(t.Duration, rate)
		if t.HasVideo && t.VideoFrames > 0 {
			last = t.VideoFrames
		}
		longest = max(longest, last)
		e.tracks[i] = track{m: t, last: last, tc: SecToFrame(t.StartTimecode, rate)}
	}
	e.segs = frameList(keep, rate, longest)
	if len(e.segs) == 0 {
		return nil, ErrNoWholeFrame
	}
	for i := range e.tracks {
		e.tracks[i].segs = upTo(e.segs, e.tracks[i].last)
	}
	e.last, e.tc = e.tracks[0].last, e.tracks[0].tc
	e.title = o.Title
	if e.title == "" {
		e.title = m.Name + " (cut)"
	}
	return e, nil
}

// upTo returns the segments within a track last frames long: those that
// start before its end, the one across it shortened (segs itself when all
// are within).
func upTo(segs []Segment, last int64) []Segment {
	if n := len(segs); n == 0 || segs[n-1].SrcOut <= last {
		return segs
	}
	var out []Segment
	for _, s := range segs {
		if s.SrcIn >= last {
			break
		}
		if s.SrcOut > last {
			s.RecOut -= s.SrcOut - last
			s.SrcOut = last
		}
		out = append(out, s)
	}
	return out
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// timebaseRate reports whether the edit rate is one xmeml and CMX 3600 can
// state: they count whole frames per second (xmeml's timebase, an EDL's
// timecode), with NTSC rates (N×1000/1001) flagged as such. At 12.5 or
// 2997/100 fps they would state another rate (13 or 30), and every time
// in them would be off.
func (e *edit) timebaseRate() bool {
	return e.rate.Den == 1 || e.rate.Den == 1001 && e.rate.Num%1000 == 0
}

// check reports whether kind k can be written for this edit.
func (e *edit) check(k Kind) error {
	fps := strconv.FormatFloat(math.Round(e.rate.Float()*1000)/1000, 'f', -1, 64)
	switch k {
	case Premiere, EDL:
		if !e.timebaseRate() {
			return fmt.Errorf("%w: %s at %s fps: it states whole frames per second or an NTSC rate (such as 25 or 30000/1001) and cannot state this one; "+
				"choose such a rate, or another kind (fcpxml, otio, csv)", ErrInvalidOptions, k, fps)
		}
		if k == EDL && e.fps > 100 {
			return fmt.Errorf("%w: edl at %s fps: CMX 3600 timecode writes two digits of frames (at most 100 fps); "+
				"choose another kind (fcpxml, premiere, otio, csv)", ErrInvalidOptions, fps)
		}
	case FCPXML, OTIO, CSV:
	default:
		return fmt.Errorf("%w: timeline %q", ErrInvalidOptions, k)
	}
	return nil
}

// frameSize is the video frame size the timelines declare: the media's,
// or 1920x1080 for audio-only media and video of unknown size (editors
// need a video format for every sequence).
func (e *edit) frameSize() (w, h int) {
	if e.m.HasVideo && e.m.Width > 0 && e.m.Height > 0 {
		return e.m.Width, e.m.Height
	}
	return 1920, 1080
}

// total returns the record length in frames.
func (e *edit) total() int64 { return e.segs[len(e.segs)-1].RecOut }

// Write writes the timeline of kind k for the kept ranges of media m.
// An EDL of more than 999 events returns ErrTooManyEvents (WriteFiles splits it).
// Premiere XML and EDL state whole frames per second or an NTSC rate: at
// another edit rate (12.5, 2997/100) they return ErrInvalidOptions, as
// does an EDL past 100 fps (two digits of frames).
func Write(w io.Writer, k Kind, keep []dsp.Range, m Media, o Options) error {
	return WriteTracks(w, k, keep, []Media{m}, o)
}

// WriteTracks writes the timeline of kind k for the kept ranges of a
// recording of several tracks (1 to MaxTracks, aligned from 0, each its
// own media): all are cut alike, each up to its own media's end. The first
// names the timeline and, for a video, is the video. FCPXML connects the
// other tracks' clips to the first's in lanes -1, -2, ...; Premiere XML
// and OpenTimelineIO have an audio track (two for stereo in Premiere) per
// track; CSV has a track column (from 1) after the index; an EDL is one
// track's list, Options.EDLTrack's (WriteFilesTracks writes them all).
// One track writes what Write does.
func WriteTracks(w io.Writer, k Kind, keep []dsp.Range, tracks []Media, o Options) error {
	e, err := newTracksEdit(keep, tracks, o)
	if err != nil {
		return err
	}
	if err := e.check(k); err != nil {
		return err
	}
	switch k {
	case FCPXML:
		return e.writeFCPXML(w)
	case Premiere:
		return e.writeXMEML(w)
	case EDL:
		tr := &e.tracks[max(o.EDLTrack, 1)-1]
		if n := e.edlEvents(tr); n > edlMaxEvents {
			return fmt.Errorf("%w: this plan needs %d; write it with WriteFiles, which splits it into several EDLs", ErrTooManyEvents, n)
		}
		return e.writeEDL(w, tr, tr.segs, 1, 1)
	case OTIO:
		return e.writeOTIO(w)
	case CSV:
		return e.writeCSV(w)
	}
	return fmt.Errorf("%w: timeline %q", ErrInvalidOptions, k)
}

// Check reports the error Write would return for kind k of this edit
// before writing anything (an edit rate the kind cannot state, bad
// options), or nil. An EDL past 999 events passes: WriteFiles splits it.
func Check(k Kind, keep []dsp.Range, m Media, o Options) error {
	return CheckTracks(k, keep, []Media{m}, o)
}

// CheckTracks is Check for a recording of several tracks (WriteTracks).
func CheckTracks(k Kind, keep []dsp.Range, tracks []Media, o Options) error {
	e, err := newTracksEdit(keep, tracks, o)
	if err != nil {
		return err
	}
	return e.check(k)
}

// WriteFiles writes the timelines of kinds into dir (created if missing) as
// <stem>-autocut.<ext> and returns the paths written. An EDL past 999 events is split into
// <stem>-autocut.edl, <stem>-autocut-part2.edl, ... (never truncated). A kind
// Write would refuse for this edit (see Write) is refused before any file is written.
func WriteFiles(dir, stem string, kinds []Kind, keep []dsp.Range, m Media, o Options) ([]string, error) {
	return WriteFilesTracks(dir, stem, kinds, keep, []Media{m}, o)
}

// WriteFilesTracks is WriteFiles for a recording of several tracks
// (WriteTracks): one file per kind, but an EDL per track, the first's
// named as WriteFiles names it and track n's <stem>-autocut-trackn.edl
// (split lists: <stem>-autocut-trackn-part2.edl, ...).
func WriteFilesTracks(dir, stem string, kinds []Kind, keep []dsp.Range, tracks []Media, o Options) ([]string, error) {
	e, err := newTracksEdit(keep, tracks, o)
	if err != nil {
		return nil, err
	}
	for _, k := range kinds { // before any file is written
		if err := e.check(k); err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var out []string
	write := func(name string, f func(io.Writer) error) error {
		p := filepath.Join(dir, name)
		file, err := os.Create(p)
		if err != nil {
			return err
		}
		if err := f(file); err != nil {
			file.Close()
			os.Remove(p)
			return err
		}
		out = append(out, p)
		return file.Close()
	}
	for _, k := range kinds {
		var err error
		switch k {
		case FCPXML:
			err = write(stem+"-autocut"+k.Ext(), e.writeFCPXML)
		case Premiere:
			err = write(stem+"-autocut"+k.Ext(), e.writeXMEML)
		case OTIO:
			err = write(stem+"-autocut"+k.Ext(), e.writeOTIO)
		case CSV:
			err = write(stem+"-autocut"+k.Ext(), e.writeCSV)
		case EDL:
		tracks:
			for ti := range e.tracks {
				tr := &e.tracks[ti]
				base := stem + "-autocut"
				if ti > 0 {
					base = fmt.Sprintf("%s-autocut-track%d", stem, ti+1)
				}
				parts := e.edlParts(tr)
				for i, segs := range parts {
					name := base + ".edl"
					if i > 0 {
						name = fmt.Sprintf("%s-part%d.edl", base, i+1)
					}
					segs, part := segs, i+1
					if err = write(name, func(w io.Writer) error { return e.writeEDL(w, tr, segs, part, len(parts)) }); err != nil {
						break tracks
					}
				}
			}
		default:
			err = fmt.Errorf("%w: timeline %q", ErrInvalidOptions, k)
		}
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// windowsPath reports whether p is an absolute Windows path, a drive
// ("D:\Media\a.mov", "D:/Media/a.mov") or UNC ("\\nas\share\a.mov") path,
// whatever system writes the timeline: the editor that opens it may run on
// Windows while autocut runs elsewhere.
func windowsPath(p string) bool {
	drive := len(p) >= 3 && (p[0]|0x20 >= 'a' && p[0]|0x20 <= 'z') && p[1] == ':' && (p[2] == '\\' || p[2] == '/')
	return drive || strings.HasPrefix(p, `\\`) && len(p) > 2 && p[2] != '\\'
}

// mediaURL returns p as a URL when it is one ("https://host/a.mov"): a
// scheme of two letters or more (not a drive) and "://".
func mediaURL(p string) (*url.URL, bool) {
	u, err := url.Parse(p)
	if err != nil || len(u.Scheme) < 2 || !strings.HasPrefix(p[len(u.Scheme):], "://") {
		return nil, false
	}
	return u, true
}

// filePathOfURL returns the path a file URL names ("file:///Volumes/a%20b.mov",
// "file://localhost/D%3a/a.mov" as Premiere writes it, "file://nas/share/a.mov")
// and whether p is a file URL.
func filePathOfURL(p string) (string, bool) {
	u, ok := mediaURL(p)
	if !ok || !strings.EqualFold(u.Scheme, "file") {
		return "", false
	}
	switch {
	case u.Host != "" && !strings.EqualFold(u.Host, "localhost"):
		return `\\` + u.Host + strings.ReplaceAll(u.Path, "/", `\`), true
	case len(u.Path) > 1 && windowsPath(u.Path[1:]):
		return u.Path[1:], true
	}
	return u.Path, true
}

// fileURL is a percent-encoded file URL for an absolute path (a Windows
// one too: file:///D:/Media/a.mov, file://nas/share/a.mov), or a
// percent-encoded relative reference for a relative one (resolved by the
// editor against the timeline's own location). A URL stays one.
func fileURL(p string) string {
	if u, ok := mediaURL(p); ok {
		return u.String()
	}
	if windowsPath(p) {
		p = strings.ReplaceAll(p, `\`, "/")
		if host, rest, ok := strings.Cut(strings.TrimPrefix(p, "//"), "/"); strings.HasPrefix(p, "//") && ok {
			return (&url.URL{Scheme: "file", Host: host, Path: "/" + rest}).String()
		}
		return (&url.URL{Scheme: "file", Path: "/" + p}).String()
	}
	p = filepath.ToSlash(p)
	if path.IsAbs(p) {
		return (&url.URL{Scheme: "file", Path: p}).String()
	}
	return (&url.URL{Path: p}).String()
}

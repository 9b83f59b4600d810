package apiv1

import (
	"encoding/json"
	"time"
)

// Status is a job's state.
type Status string

// Job states: a job starts analyzing; it goes through transcribing when
// transcription was asked and rendering when a render is due, and ends done
// or failed (with Job.Error). A re-run (Patch) starts again from the first
// state it needs.
const (
	StatusAnalyzing    Status = "analyzing"
	StatusTranscribing Status = "transcribing"
	StatusRendering    Status = "rendering"
	StatusDone         Status = "done"
	StatusFailed       Status = "failed"
)

// Statuses returns every job state in the order a job goes through them.
func Statuses() []Status {
	return []Status{StatusAnalyzing, StatusTranscribing, StatusRendering, StatusDone, StatusFailed}
}

// Busy reports whether a job in state s is being worked on.
func (s Status) Busy() bool {
	return s == StatusAnalyzing || s == StatusTranscribing || s == StatusRendering
}

// Transcript states.
const (
	TranscriptPending = "pending" // queued behind another transcription
	TranscriptRunning = "running"
	TranscriptDone    = "done"
	TranscriptFailed  = "failed"
)

// TranscriptStatuses returns every transcript state.
func TranscriptStatuses() []string {
	return []string{TranscriptPending, TranscriptRunning, TranscriptDone, TranscriptFailed}
}

// Patch actions.
const (
	ActionExport     = "export"     // render again with the job's settings
	ActionTranscribe = "transcribe" // transcribe, cut the fillers, render when due
)

// Actions returns the actions a Patch may ask for.
func Actions() []string { return []string{ActionExport, ActionTranscribe} }

// ParamsInput are analysis parameters as a client sends them; nil means
// unset (the job's own, or the preset's).
type ParamsInput struct {
	ThresholdDb   *float64 `json:"thresholdDb,omitempty"`
	MinSilenceSec *float64 `json:"minSilenceSec,omitempty"`
	KeepSilenceMs *float64 `json:"keepSilenceMs,omitempty"`
	MinSpeechMs   *float64 `json:"minSpeechMs,omitempty"`
	// Crosstalk: "keep" (a voice under the main one is speech: the far
	// side of a call, a guest off-mic; the default) or "cut" (one person's
	// microphone: another speaker's bleed, well under the main voice, is
	// cut as pause).
	Crosstalk *string `json:"crosstalk,omitempty"`
}

// ExportInput are export settings as a client sends them; nil means unset.
type ExportInput struct {
	Format     *string `json:"format,omitempty"`
	Normalize  *string `json:"normalize,omitempty"`
	Denoise    *bool   `json:"denoise,omitempty"`
	Rumble     *bool   `json:"rumble,omitempty"`
	CutFillers *bool   `json:"cutFillers,omitempty"`
	// GateBleed turns each track of a job of several tracks down outside
	// its own voice in the mix (its bleed of the others); extension.
	GateBleed *bool `json:"gateBleed,omitempty"`
}

// Options are the option fields of both creation forms: the JSON body with
// a url, or the X-Options header of a streamed upload.
type Options struct {
	Preset     string       `json:"preset,omitempty"`
	Params     *ParamsInput `json:"params,omitempty"`
	Export     *ExportInput `json:"export,omitempty"`
	Transcribe *bool        `json:"transcribe,omitempty"`
	AutoExport *bool        `json:"autoExport,omitempty"`
	// Language is the speech's language for transcription ("en", "fr":
	// two or three letters; "fr-CA" is taken as "fr"); absent or "" lets
	// the engine detect it where it can.
	Language *string `json:"language,omitempty"`
	// Tracks says that the file is a recording of several tracks, one
	// microphone per person, aligned from 0: "streams" takes each audio
	// stream as a track (OBS's MKV, MP4, MOV), "channels" each channel of
	// the first audio stream. Absent or "" takes the file as one track.
	// The plan cuts only where nobody speaks; the output is the tracks'
	// mix. 2 to MaxTracks tracks.
	Tracks string `json:"tracks,omitempty"`
}

// Ways a file holds the tracks of a recording (Options.Tracks).
const (
	TracksStreams  = "streams"
	TracksChannels = "channels"
)

// MaxTracks is the most tracks a job's recording may have.
const MaxTracks = 16

// Track is one track of a job's recording (Job.Tracks): which stream of
// the file it is and, in "channels" mode, which channel of the first
// stream (both from 0), and what its analysis found.
type Track struct {
	Index      int      `json:"index"`
	Stream     int      `json:"stream"`
	Channel    *int     `json:"channel,omitempty"`
	Duration   float64  `json:"duration"`   // seconds
	SampleRate int      `json:"sampleRate"` // Hz
	Channels   int      `json:"channels"`
	Loudness   *float64 `json:"loudnessLufs,omitempty"` // integrated, the whole track
}

// CreateFromURL is the JSON body that asks the server to download the media.
type CreateFromURL struct {
	URL string `json:"url"`
	Options
}

// Patch changes a job's settings and re-runs it (Action "export" or
// "transcribe"; "" saves the settings, re-rendering an auto-exported job
// whose settings changed).
//
// Cuts, when present, sets an explicit cut list: the plan then holds
// exactly these cuts (sorted, not overlapping, inside the input; an empty
// list keeps everything), each with the reason of the detected cut it
// equals, else "manual". A later Patch with params (or action transcribe)
// drops the list and plans from the detection again; one with export only
// keeps it.
//
// Fillers reviews the transcript's fillers (see FillerReview) and plans
// from the detection again, as params do; it cannot go with cuts or with
// action transcribe. Language changes the transcription's language: on a
// job that transcribes, a new language transcribes again.
type Patch struct {
	Params   *ParamsInput  `json:"params,omitempty"`
	Export   *ExportInput  `json:"export,omitempty"`
	Cuts     *[]Range      `json:"cuts,omitempty"`
	Fillers  *FillerReview `json:"fillers,omitempty"`
	Language *string       `json:"language,omitempty"`
	Action   string        `json:"action,omitempty"`
}

// Params are a job's effective analysis parameters. ThresholdDb is null
// while an automatic threshold is not known yet.
type Params struct {
	ThresholdDb   *float64 `json:"thresholdDb"`
	MinSilenceSec float64  `json:"minSilenceSec"`
	KeepSilenceMs float64  `json:"keepSilenceMs"`
	MinSpeechMs   float64  `json:"minSpeechMs"`
	Crosstalk     string   `json:"crosstalk"` // "keep" or "cut"
}

// Export are a job's effective export settings.
type Export struct {
	Format     string `json:"format"`
	Normalize  string `json:"normalize"`
	Denoise    bool   `json:"denoise"`
	Rumble     bool   `json:"rumble"`
	CutFillers bool   `json:"cutFillers"`
	// GateBleed: see ExportInput; absent when false (jobs of one track).
	GateBleed bool `json:"gateBleed,omitempty"`
}

// Input describes a job's input.
type Input struct {
	Name     string   `json:"name"`
	Type     string   `json:"type"` // "audio" or "video"; "" until the analysis for containers that may hold video
	Duration *float64 `json:"duration"`
}

// Output describes a job's rendered file.
type Output struct {
	URL      string  `json:"url"`    // the download address
	Format   string  `json:"format"` // container: mp3, wav, m4a, mp4
	Duration float64 `json:"duration"`
	Name     string  `json:"name"`
	Size     int64   `json:"size"`
}

// Cut is a removed stretch of the original, in seconds, and why.
type Cut struct {
	Start  float64 `json:"start"`
	End    float64 `json:"end"`
	Reason string  `json:"reason"` // why: "silence", "short-speech", "noise", "filler", "manual"
}

// Range is a half-open time interval [Start, End) in seconds of the original.
type Range struct {
	Start float64 `json:"start"`
	End   float64 `json:"end"`
}

// Stats summarise a plan.
type Stats struct {
	OriginalSec float64 `json:"originalSec"`
	FinalSec    float64 `json:"finalSec"`
	SavedSec    float64 `json:"savedSec"`
	SavedPct    float64 `json:"savedPct"`
	CutsCount   int     `json:"cutsCount"`
}

// Plan is a job's cut plan: cuts and keeps are sorted, disjoint and
// together cover [0, Stats.OriginalSec].
type Plan struct {
	Cuts         []Cut   `json:"cuts"`
	Keep         []Range `json:"keep"`
	Stats        Stats   `json:"stats"`
	ThresholdDb  float64 `json:"thresholdDb"` // the threshold used (automatic or given)
	NoiseFloorDb float64 `json:"noiseFloorDb"`
	Params       Params  `json:"params"` // the params the plan used, threshold filled in
	// CutsOmitted is true in the job list: its plans leave cuts and keep
	// out (a plan may hold tens of thousands); GET the job for them.
	CutsOmitted bool `json:"cutsOmitted,omitempty"`
}

// MarshalJSON writes the plan with cuts and keep as arrays, [] when empty
// (never null), or without them when CutsOmitted.
func (p Plan) MarshalJSON() ([]byte, error) {
	type plain Plan // without the method
	if p.CutsOmitted {
		return json.Marshal(struct {
			Stats        Stats   `json:"stats"`
			ThresholdDb  float64 `json:"thresholdDb"`
			NoiseFloorDb float64 `json:"noiseFloorDb"`
			Params       Params  `json:"params"`
			CutsOmitted  bool    `json:"cutsOmitted"`
		}{p.Stats, p.ThresholdDb, p.NoiseFloorDb, p.Params, true})
	}
	if p.Cuts == nil {
		p.Cuts = []Cut{}
	}
	if p.Keep == nil {
		p.Keep = []Range{}
	}
	return json.Marshal(plain(p))
}

// Word is a recognised word with its time in the original, in seconds.
type Word struct {
	Word       string  `json:"word"`
	Start      float64 `json:"start"`
	End        float64 `json:"end"`
	Confidence float64 `json:"confidence"`
}

// Filler is a filler word found in the transcript. Every filler found is
// listed; Cut says whether cutFillers cuts it: the engine's confident ones
// (Confidence at or above the transcript's AutoCutConfidence) and the ones
// accepted by a PATCH with fillers.accept, never one inside a recognised
// word. One not cut is a suggestion.
type Filler struct {
	ID         int     `json:"id"` // its index in the transcript's fillers, for FillerReview
	Word       string  `json:"word"`
	Start      float64 `json:"start"`
	End        float64 `json:"end"`
	Kind       string  `json:"kind"` // "filler"
	Confidence float64 `json:"confidence"`
	Cut        bool    `json:"cut"`
	Review     string  `json:"review,omitempty"` // "accept", "reject", or absent: not reviewed
}

// Transcript is a job's transcription and the fillers found in it.
type Transcript struct {
	Status   string   `json:"status"` // see TranscriptStatuses
	Language string   `json:"language"`
	Engine   string   `json:"engine,omitempty"`
	Words    []Word   `json:"words"`
	Fillers  []Filler `json:"fillers"`
	// AutoCutConfidence is the confidence from which a filler is cut
	// without review; absent when the engine only suggests.
	AutoCutConfidence *float64 `json:"autoCutConfidence,omitempty"`
	// Warning says what limits the transcript: no engine on the server
	// hears its language (no filler was looked for), or the language was
	// assumed.
	Warning string `json:"warning,omitempty"`
}

// FillerReview is a PATCH's decisions on the transcript's fillers, by
// Filler.ID: accepted ones are cut (when export.cutFillers holds), rejected
// ones kept; fillers not named keep their earlier review.
type FillerReview struct {
	Accept []int `json:"accept,omitempty"`
	Reject []int `json:"reject,omitempty"`
}

// MarshalJSON writes the transcript with words and fillers as arrays, []
// while there are none (a pending transcript too), never null.
func (t Transcript) MarshalJSON() ([]byte, error) {
	type plain Transcript // without the method
	if t.Words == nil {
		t.Words = []Word{}
	}
	if t.Fillers == nil {
		t.Fillers = []Filler{}
	}
	return json.Marshal(plain(t))
}

// Timelines are the addresses of a job's timeline exports, one per kind.
type Timelines struct {
	FCPXML   string `json:"fcpxml"`
	Premiere string `json:"premiere"`
	EDL      string `json:"edl"`
	OTIO     string `json:"otio"`
	CSV      string `json:"csv"`
}

// JobError is why a job failed.
type JobError struct {
	Code    ErrorCode `json:"code"`
	Message string    `json:"message"`
}

// Job is a job as the API shows it. Output is null until a rendered file
// exists (and again after its retention period); Plan appears once
// analysis has run, Transcript when transcription was asked. Timelines
// holds the timeline addresses from creation on; they answer 409 until
// the plan exists.
type Job struct {
	ID         string  `json:"id"`
	Status     Status  `json:"status"`
	Progress   float64 `json:"progress"` // percent of the whole run, 0..100
	Input      Input   `json:"input"`
	Preset     string  `json:"preset,omitempty"`
	Params     Params  `json:"params"`
	Export     Export  `json:"export"`
	Transcribe bool    `json:"transcribe"`
	// Language is the language asked for transcription, "" when not
	// given (the transcript's language says what was heard).
	Language   string  `json:"language,omitempty"`
	AutoExport bool    `json:"autoExport"`
	Output     *Output `json:"output"`
	Plan       *Plan   `json:"plan,omitempty"`
	// Warnings say what the analysis found odd about the input, as it
	// holds for the plan: a file holding less than its header gives, two
	// channels in opposite polarity, no pause or no speech to cut. [] when
	// there are none or there is no plan yet.
	Warnings   []string    `json:"warnings"`
	Transcript *Transcript `json:"transcript,omitempty"`
	Error      *JobError   `json:"error,omitempty"`
	CreatedAt  time.Time   `json:"createdAt"`
	UpdatedAt  time.Time   `json:"updatedAt"`
	Timelines  *Timelines  `json:"timelines"`
	// Tracks lists the tracks of a job created with options.tracks, in
	// order (absent for a job of one track). TracksMode is that option.
	TracksMode string  `json:"tracksMode,omitempty"`
	Tracks     []Track `json:"tracks,omitempty"`
}

// MarshalJSON writes the job with warnings as an array, [] when empty
// (never null).
func (j Job) MarshalJSON() ([]byte, error) {
	type plain Job // without the method
	if j.Warnings == nil {
		j.Warnings = []string{}
	}
	return json.Marshal(plain(j))
}

// JobList is a page of GET /api/v1/jobs, newest first. NextCursor is null
// on the last page.
type JobList struct {
	Jobs       []Job   `json:"jobs"`
	NextCursor *string `json:"nextCursor"`
}

// MaxListLimit is the most jobs one page of the list holds.
const MaxListLimit = 50

// The bounds of an explicit cut list (PATCH cuts): at most MaxCuts cuts,
// and at most one per MinCutSpacing seconds of input (at least one).
const (
	MaxCuts       = 20_000
	MinCutSpacing = 0.2
)

// MaxCutsFor returns the most cuts a cut list of an input of dur seconds
// may hold.
func MaxCutsFor(dur float64) int {
	n := MaxCuts
	if dur >= 0 && dur/MinCutSpacing < float64(n) {
		n = max(1, int(dur/MinCutSpacing))
	}
	return n
}

// Preview is the answer of GET /api/v1/jobs/{id}/preview: the plan other
// settings would make, its fields as a job's plan has them, with one more,
// warnings: the job's warnings as they hold for that plan. (The route
// answered the bare plan before warnings were added; clients that read
// only the plan's fields read it as before.)
type Preview struct {
	Plan
	Warnings []string `json:"warnings"`
}

// MarshalJSON writes the plan's fields (as Plan writes them) and warnings,
// an array, [] when empty (never null).
func (p Preview) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(p.Plan)
	if err != nil {
		return nil, err
	}
	w := p.Warnings
	if w == nil {
		w = []string{}
	}
	wb, err := json.Marshal(w)
	if err != nil {
		return nil, err
	}
	out := append(b[:len(b)-1:len(b)-1], `,"warnings":`...)
	return append(append(out, wb...), '}'), nil
}

// Envelope is the answer of GET /api/v1/jobs/{id}/envelope: levels in dBFS
// (floored at FloorDb), one per FrameSec seconds from Start (0 unless a
// stretch was asked with from), and the levels the
// analysis measured on the whole file: its background (noise floor), its
// speech and the automatic silence threshold between them.
type Envelope struct {
	Start         float64   `json:"start"`
	FrameSec      float64   `json:"frameSec"`
	FloorDb       float64   `json:"floorDb"`
	Levels        []float64 `json:"levels"`
	NoiseFloorDb  float64   `json:"noiseFloorDb"`
	SpeechLevelDb float64   `json:"speechLevelDb"`
	ThresholdDb   float64   `json:"thresholdDb"`
	// Tracks holds, for a job of several tracks (options.tracks), each
	// track's levels over the same frames as Levels, which is the loudest
	// of them; absent for a job of one track.
	Tracks [][]float64 `json:"tracks,omitempty"`
}

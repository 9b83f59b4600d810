package jobs

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/autocut-dev/autocut/apiv1"
	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/plan"
	"github.com/autocut-dev/autocut/timeline"
	"github.com/autocut-dev/autocut/transcribe"
)

// TestClientMessage checks the one mapping of errors to client text: the
// codes of media processing and server failures give a fixed message
// whatever the error holds; request errors keep the text made for the
// client; a client message set by the job layer wins while the code is
// unchanged.
func TestClientMessage(t *testing.T) {
	ffmpeg := fmt.Errorf("analyse /srv/autocut/scratch/job_x-1/in.wav: ffmpeg failed decoding in.wav: exit status 1: [pcm_s16le @ 0x55f2757d13c0] Too many channels")
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"nil", nil, ""},
		{"unknown error", ffmpeg, "internal server error"},
		{"unsupported format with tool output", fmt.Errorf("%w: ffprobe cannot read x.wav: /srv/autocut/media/originals/job_x: Invalid data", dsp.ErrUnsupportedFormat),
			"unsupported format: the content is not audio or video this server can decode, or it is damaged"},
		{"render failed", fmt.Errorf("%w: %w", apiv1.ErrRenderFailed, ffmpeg), "render failed: the cut file could not be encoded"},
		{"transcription failed", fmt.Errorf("%w: %w", apiv1.ErrTranscriptionFailed, ffmpeg), "transcription failed: the transcription engine could not transcribe this input"},
		{"transcription unavailable", fmt.Errorf("%w: whisper: open /models/ggml-base.bin: no such file", transcribe.ErrUnavailable),
			"transcription unavailable: no transcription engine is available on this server"},
		{"not ready", fmt.Errorf("%w: dial tcp 10.0.0.7:5432: connection refused", apiv1.ErrNotReady), "not ready: the database, storage or workers are not ready"},
		{"request error keeps its text", fmt.Errorf("%w: params.minSpeechMs is 5000, allowed 0 to 2000", plan.ErrInvalidParams), "invalid parameters: params.minSpeechMs is 5000, allowed 0 to 2000"},
		{"too long keeps its text", fmt.Errorf("%w: talk.wav lasts 20000 s, over the 10800 s limit", dsp.ErrTooLong), "input too long: talk.wav lasts 20000 s, over the 10800 s limit"},
		// The server's context on the way up is not for the client.
		{"store upload context", fmt.Errorf("store upload: %w", fmt.Errorf("%w: the input exceeds the limit", apiv1.ErrFileTooLarge)), "file too large: the input exceeds the limit"},
		{"read upload context", fmt.Errorf("read upload: %w", fmt.Errorf("%w: the upload sent no data for 30s", apiv1.ErrRequestTimeout)), "request timeout: the upload sent no data for 30s"},
		{"two contexts", fmt.Errorf("analyse: %w", fmt.Errorf("probe: %w", fmt.Errorf("%w: a.wav lasts 20000 s", dsp.ErrTooLong))), "input too long: a.wav lasts 20000 s"},
		{"library package prefix", fmt.Errorf("plan: all %.3f s would be cut (try a lower thresholdDb): %w", 12.0, plan.ErrNothingToKeep), "all 12.000 s would be cut (try a lower thresholdDb): nothing to keep"},
		{"context around a library error", fmt.Errorf("timeline edl: %w", fmt.Errorf("%w: this plan needs 1200", timeline.ErrTooManyEvents)), "more than 999 EDL events: this plan needs 1200"},
		{"detail before a bare sentinel stays", fmt.Errorf("job job_x: %w", apiv1.ErrNotFound), "job job_x: job not found"},
		{"context under another code stays", fmt.Errorf("%w: %w", apiv1.ErrProcessing, fmt.Errorf("x: %w", fmt.Errorf("%w: y", plan.ErrInvalidParams))), "job is being processed: x: invalid parameters: y"},
		{"client message", withClientMessage(fmt.Errorf("%w: starts with %q", dsp.ErrUnsupportedFormat, "<html>secret"), "unsupported format: not media"), "unsupported format: not media"},
		{"client message under another code", fmt.Errorf("%w: %w", apiv1.ErrRenderFailed, withClientMessage(errors.New("x"), "shown?")), "render failed: the cut file could not be encoded"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if d := cmp.Diff(tc.want, ClientMessage(tc.err)); d != "" {
				t.Errorf("ClientMessage (-want +got):\n%s", d)
			}
		})
	}
	// Every code of processing or server failures has a fixed message.
	for _, c := range []apiv1.ErrorCode{apiv1.CodeUnsupportedFormat, apiv1.CodeRenderFailed, apiv1.CodeTranscriptionFailed,
		apiv1.CodeTranscriptionUnavailable, apiv1.CodeNotReady, apiv1.CodeInternal} {
		if _, ok := fixedMessage(c); !ok {
			t.Errorf("%s has no fixed message", c)
		}
	}
}

// TestStoredErrorMessages: a job record failed before ClientMessage
// existed holds the raw error text; the job view shows the fixed message
// of its code instead, and keeps the text of request codes.
func TestStoredErrorMessages(t *testing.T) {
	for _, tc := range []struct {
		stored apiv1.JobError
		want   string
	}{
		{apiv1.JobError{Code: apiv1.CodeUnsupportedFormat, Message: "unsupported format: ffprobe cannot read a.wav: /srv/autocut/media/originals/job_x: Invalid data"},
			"unsupported format: the content is not audio or video this server can decode, or it is damaged"},
		{apiv1.JobError{Code: apiv1.CodeInternal, Message: "analyse: ffmpeg failed decoding a.wav: exit status 1: [wav @ 0x55a89d7d9180]"}, "internal server error"},
		{apiv1.JobError{Code: apiv1.CodeTooLong, Message: "input too long: a.wav lasts 20000 s, over the 10800 s limit"}, "input too long: a.wav lasts 20000 s, over the 10800 s limit"},
	} {
		r := &record{ID: "job_x", Status: apiv1.StatusFailed, Error: &tc.stored}
		if d := cmp.Diff(tc.want, r.job().Error.Message); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.stored.Code, d)
		}
		if r.Error.Message != tc.stored.Message {
			t.Errorf("job() changed the record")
		}
	}
}

package httpapi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/autocut-dev/autocut/apiv1"
	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/jobs"
	"github.com/autocut-dev/autocut/plan"
)

// fakeService is an in-memory jobs.Service. err, when set for a method
// name, is returned by that method; "panic" as an id makes Get panic.
type fakeService struct {
	mu        sync.Mutex
	jobs      map[string]*apiv1.Job
	owners    map[string]string // job id -> owner
	order     []string
	errs      map[string]error
	created   int
	lastPatch apiv1.Patch
	lastReq   jobs.CreateRequest
	read      int64 // bytes Create read from its media
	levels    []float32
	// lastEnvelope is the last envelope query.
	lastEnvelope jobs.EnvelopeQuery
	waiting      chan struct{} // Get sends when it waits for the client to go (errWaitForClient)
}

// errWaitForClient makes Get wait for the end of the request's context
// and fail with its error, as a database read does.
var errWaitForClient = errors.New("fake: wait until the client goes")

func newFake() *fakeService {
	return &fakeService{jobs: map[string]*apiv1.Job{}, owners: map[string]string{}, errs: map[string]error{}, waiting: make(chan struct{}, 64)}
}

func (f *fakeService) fail(method string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.errs[method]
}

func (f *fakeService) Create(ctx context.Context, req jobs.CreateRequest, media io.Reader) (*apiv1.Job, error) {
	f.mu.Lock()
	f.created++
	f.lastReq = req
	f.mu.Unlock()
	head := make([]byte, 8)
	n, _ := io.ReadFull(media, head)
	if bytes.HasPrefix(head[:n], []byte("NOTMEDIA")) {
		return nil, fmt.Errorf("sniffed %q: %w", head[:n], dsp.ErrUnsupportedFormat)
	}
	rest, err := io.Copy(io.Discard, media)
	f.mu.Lock()
	f.read = int64(n) + rest
	f.mu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("store input: %w", err)
	}
	if err := f.fail("Create"); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	id := fmt.Sprintf("job_%03d", len(f.order)+1)
	j := &apiv1.Job{ID: id, Status: apiv1.StatusAnalyzing, Input: apiv1.Input{Name: req.Name},
		Params: apiv1.Params{MinSilenceSec: 0.5, KeepSilenceMs: 200, MinSpeechMs: 100, Crosstalk: "keep"},
		Export: apiv1.Export{Format: "mp3", Normalize: "none"}, AutoExport: true, CreatedAt: time.Unix(1700000000, 0).UTC()}
	f.jobs[id] = j
	f.owners[id] = req.Owner
	f.order = append(f.order, id)
	c := *j
	return &c, nil
}

func (f *fakeService) get(owner, id string) (*apiv1.Job, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	j, ok := f.jobs[id]
	if !ok || f.owners[id] != owner {
		return nil, fmt.Errorf("%w: %s", apiv1.ErrNotFound, id)
	}
	c := *j
	return &c, nil
}

func (f *fakeService) Get(ctx context.Context, owner, id string) (*apiv1.Job, error) {
	if id == "panic" {
		panic("fake panic")
	}
	if err := f.fail("Get"); errors.Is(err, errWaitForClient) {
		// The work a client's leaving stops: it ends with the request's context.
		f.waiting <- struct{}{}
		<-ctx.Done()
		return nil, fmt.Errorf("load job %s: %w", id, ctx.Err())
	} else if err != nil {
		return nil, err
	}
	return f.get(owner, id)
}

func (f *fakeService) List(ctx context.Context, owner string, limit int, cursor string) ([]*apiv1.Job, string, error) {
	if err := f.fail("List"); err != nil {
		return nil, "", err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []*apiv1.Job
	started := cursor == ""
	for i := len(f.order) - 1; i >= 0; i-- {
		j := f.jobs[f.order[i]]
		if j == nil || f.owners[j.ID] != owner {
			continue
		}
		if !started {
			started = j.ID == cursor
			continue
		}
		if len(out) == limit {
			return out, out[len(out)-1].ID, nil
		}
		c := *j
		out = append(out, &c)
	}
	return out, "", nil
}

func (f *fakeService) Update(ctx context.Context, owner, id string, p apiv1.Patch) (*apiv1.Job, error) {
	j, err := f.get(owner, id)
	if err != nil {
		return nil, err
	}
	if err := f.fail("Update"); err != nil {
		return nil, err
	}
	f.mu.Lock()
	f.lastPatch = p
	f.mu.Unlock()
	j.Status = apiv1.StatusAnalyzing
	return j, nil
}

func (f *fakeService) Delete(ctx context.Context, owner, id string) error {
	if _, err := f.get(owner, id); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.jobs, id)
	return nil
}

const fakeOutput = "0123456789abcdefghijklmnopqrstuvwxyz"

func (f *fakeService) OpenOutput(ctx context.Context, owner, id string) (*jobs.Download, error) {
	j, err := f.get(owner, id)
	if err != nil {
		return nil, err
	}
	if err := f.fail("OpenOutput"); err != nil {
		return nil, err
	}
	return &jobs.Download{ReadSeekCloser: nopCloser{strings.NewReader(fakeOutput)}, Name: "talk é-autocut.mp3",
		ContentType: "audio/mpeg", ModTime: j.CreatedAt, Size: int64(len(fakeOutput))}, nil
}

type nopCloser struct{ io.ReadSeeker }

func (nopCloser) Close() error { return nil }

func (f *fakeService) TimelineSource(ctx context.Context, owner, id string) (*jobs.TimelineSource, error) {
	if _, err := f.get(owner, id); err != nil {
		return nil, err
	}
	if err := f.fail("TimelineSource"); err != nil {
		return nil, err
	}
	return &jobs.TimelineSource{Plan: &plan.Plan{Keep: []dsp.Range{{Start: 0, End: 1}}}, Info: dsp.Info{Name: "talk.wav", Duration: 2}}, nil
}

func (f *fakeService) Preview(ctx context.Context, owner, id string, p apiv1.ParamsInput) (*apiv1.Preview, error) {
	if _, err := f.get(owner, id); err != nil {
		return nil, err
	}
	if err := f.fail("Preview"); err != nil {
		return nil, err
	}
	th := -40.0
	if p.ThresholdDb != nil {
		th = *p.ThresholdDb
	}
	return &apiv1.Preview{Plan: apiv1.Plan{ThresholdDb: th, Keep: []apiv1.Range{{Start: 0, End: 1}}}}, nil
}

func (f *fakeService) Envelope(ctx context.Context, owner, id string, q jobs.EnvelopeQuery) (*jobs.Envelope, error) {
	if _, err := f.get(owner, id); err != nil {
		return nil, err
	}
	if err := f.fail("Envelope"); err != nil {
		return nil, err
	}
	f.mu.Lock()
	f.lastEnvelope = q
	f.mu.Unlock()
	return &jobs.Envelope{Start: q.From, FrameSec: 0.05, Levels: f.levels, NoiseFloorDb: -62, SpeechLevelDb: -21, ThresholdDb: -45}, nil
}

const fakeOriginal = "the original media bytes"

func (f *fakeService) OpenOriginal(ctx context.Context, owner, id string) (*jobs.Download, error) {
	j, err := f.get(owner, id)
	if err != nil {
		return nil, err
	}
	if err := f.fail("OpenOriginal"); err != nil {
		return nil, err
	}
	return &jobs.Download{ReadSeekCloser: nopCloser{strings.NewReader(fakeOriginal)}, Name: "talk é.wav",
		ContentType: "audio/wav", ModTime: j.CreatedAt, Size: int64(len(fakeOriginal))}, nil
}

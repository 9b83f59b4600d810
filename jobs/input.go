package jobs

import (
	"fmt"
	"slices"
	"strings"

	"github.com/autocut-dev/autocut/apiv1"
	"github.com/autocut-dev/autocut/plan"
	"github.com/autocut-dev/autocut/transcode"
)

// The checks of what a client sends. The allowed values are the owning
// packages' (plan's presets and ranges, transcode's formats and
// normalizations); the HTTP adapter runs these checks before it reads a
// byte of media, and the job layer again when it applies the input.

// CheckOptions checks creation options: the preset, the params' ranges and
// the export's values (plan.ErrInvalidParams naming the field otherwise).
func CheckOptions(o apiv1.Options) error {
	if o.Preset != "" {
		if _, err := plan.LookupPreset(o.Preset); err != nil {
			return err
		}
	}
	if err := checkParams("params.", o.Params); err != nil {
		return err
	}
	if _, err := language(o.Language); err != nil {
		return err
	}
	if err := checkTracksMode(o.Tracks); err != nil {
		return err
	}
	return CheckExport(o.Export)
}

// CheckPatch checks a patch: its action, params and export.
func CheckPatch(p apiv1.Patch) error {
	if p.Action != "" && !slices.Contains(apiv1.Actions(), p.Action) {
		return invalid("action must be one of %s (got %q)", strings.Join(apiv1.Actions(), ", "), p.Action)
	}
	if p.Cuts != nil && len(*p.Cuts) > MaxCuts {
		return tooManyCuts(len(*p.Cuts), -1)
	}
	if err := checkParams("params.", p.Params); err != nil {
		return err
	}
	if _, err := language(p.Language); err != nil {
		return err
	}
	if p.Fillers != nil && len(p.Fillers.Accept)+len(p.Fillers.Reject) > MaxCuts {
		return invalid("fillers: %d ids, at most %d", len(p.Fillers.Accept)+len(p.Fillers.Reject), MaxCuts)
	}
	return CheckExport(p.Export)
}

// CheckParams checks the params that are set against plan.Limits.
func CheckParams(p *apiv1.ParamsInput) error { return checkParams("", p) }

// checkParams names the fields with prefix in its errors ("params.").
func checkParams(prefix string, p *apiv1.ParamsInput) error {
	if p == nil {
		return nil
	}
	for _, f := range []struct {
		name string
		v    *float64
	}{{"thresholdDb", p.ThresholdDb}, {"minSilenceSec", p.MinSilenceSec}, {"keepSilenceMs", p.KeepSilenceMs}, {"minSpeechMs", p.MinSpeechMs}} {
		if f.v == nil {
			continue
		}
		l, ok := plan.LimitOf(f.name)
		if !ok {
			return fmt.Errorf("jobs: no limit for parameter %s", f.name)
		}
		if !l.Contains(*f.v) {
			return invalid("%s%s must be between %g and %g, got %g", prefix, f.name, l.Min, l.Max, *f.v)
		}
	}
	if p.Crosstalk != nil && !slices.Contains(plan.CrosstalkModes(), *p.Crosstalk) {
		return invalid("%scrosstalk must be one of %s, got %q", prefix, strings.Join(plan.CrosstalkModes(), ", "), *p.Crosstalk)
	}
	return nil
}

// CheckExport checks the export values that are set against transcode's
// formats and normalizations.
func CheckExport(e *apiv1.ExportInput) error {
	if e == nil {
		return nil
	}
	if e.Format != nil && !slices.Contains(transcode.Formats(), *e.Format) {
		return invalid("export.format must be one of %s (got %q)", strings.Join(transcode.Formats(), ", "), *e.Format)
	}
	if e.Normalize != nil && !slices.Contains(transcode.Normalizations(), *e.Normalize) {
		return invalid("export.normalize must be one of %s (got %q)", strings.Join(transcode.Normalizations(), ", "), *e.Normalize)
	}
	return nil
}

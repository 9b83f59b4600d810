package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
)

// cmdFlags is a subcommand's flag set. It prints nothing by itself: help
// goes to standard output (autocut help cut, autocut cut -h), and a value
// the user got wrong is reported with the flag as typed and what is allowed
// ("--threshold -5: allowed -70 to -10 dB"), not with the API's field name.
type cmdFlags struct {
	*flag.FlagSet
	synopsis string // "autocut cut [flags] [-o OUT] FILE"
	about    string // a paragraph under the synopsis
	err      error  // the value error of the failed flag, worded for the user
}

func newFlags(name, synopsis, about string) *cmdFlags {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return &cmdFlags{FlagSet: fs, synopsis: synopsis, about: about}
}

// dashed is a flag's name as the help writes it: -o, --keep-silence.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// value registers a flag parsed by set; set's error is reported as
// "--name TEXT: error".
func (c *cmdFlags) value(name, usage string, set func(string) error) {
	c.Func(name, usage, func(s string) error {
		if err := set(s); err != nil {
			c.err = fmt.Errorf("%s %s: %w", dashed(name), s, err)
			return err
		}
		return nil
	})
}

// number registers a float flag allowed in [lo, hi] (unit is for messages).
func (c *cmdFlags) number(name, usage string, lo, hi float64, unit string, dst **float64) {
	c.value(name, usage, func(s string) error {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return fmt.Errorf("not a number (%s)", unit)
		}
		if math.IsNaN(v) || v < lo || v > hi {
			return fmt.Errorf("allowed %g to %g %s", lo, hi, unit)
		}
		*dst = &v
		return nil
	})
}

// duration registers a duration flag: a number with a unit ("500ms",
// "0.6s", "1m30s", as time.ParseDuration reads them) or a bare number in
// the flag's own unit, "s" or "ms" (the API's: minSilenceSec, keepSilenceMs).
// The value is stored in that unit and must lie in [lo, hi].
func (c *cmdFlags) duration(name, usage string, unit string, lo, hi float64, dst **float64) {
	scale := map[string]time.Duration{"s": time.Second, "ms": time.Millisecond}[unit]
	c.value(name, usage, func(s string) error {
		v, err := parseDuration(s, scale)
		if err != nil {
			return fmt.Errorf("not a duration (e.g. 500ms, 0.6s, or a number of %s)", map[string]string{"s": "seconds", "ms": "milliseconds"}[unit])
		}
		if v < lo || v > hi {
			return fmt.Errorf("allowed %g to %g %s", lo, hi, unit)
		}
		*dst = &v
		return nil
	})
}

// parseDuration reads s as a bare number of unit or as a Go duration, and
// returns it in unit.
func parseDuration(s string, unit time.Duration) (float64, error) {
	if v, err := strconv.ParseFloat(s, 64); err == nil {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, errors.New("not finite")
		}
		return v, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, err
	}
	return float64(d) / float64(unit), nil
}

// choice registers a string flag allowed one of values.
func (c *cmdFlags) choice(name, usage string, values []string, dst *string) {
	c.value(name, usage, func(s string) error {
		for _, v := range values {
			if strings.EqualFold(s, v) {
				*dst = v
				return nil
			}
		}
		return fmt.Errorf("allowed %s", strings.Join(values, ", "))
	})
}

// parse parses the arguments (flags may follow the positionals) and returns
// the positionals. -h prints the help to out and returns flag.ErrHelp.
func (c *cmdFlags) parse(args []string, out io.Writer) ([]string, error) {
	pos, err := parseInterspersed(c.FlagSet, args)
	if errors.Is(err, flag.ErrHelp) {
		c.printHelp(out)
		return nil, err
	}
	if err != nil {
		if c.err != nil {
			return nil, usageError{c.err.Error()}
		}
		return nil, flagError{c.flagMessage(err)}
	}
	return pos, nil
}

// flagMessage rewords the flag package's errors with the flags spelt as
// the help spells them ("unknown flag --tresh" for "flag provided but not
// defined: -tresh").
func (c *cmdFlags) flagMessage(err error) string {
	msg := err.Error()
	// invalid boolean value "maybe" for -allow-private-urls: parse error
	if rest, ok := strings.CutPrefix(msg, "invalid boolean value "); ok {
		msg = "invalid value " + strings.Replace(rest, " for -", " for flag -", 1)
	}
	// invalid value "many" for flag -workers: parse error
	if rest, ok := strings.CutPrefix(msg, "invalid value "); ok {
		if val, rest, ok := strings.Cut(rest, " for flag -"); ok {
			if name, why, ok := strings.Cut(rest, ": "); ok {
				if v, err := strconv.Unquote(val); err == nil {
					val = v
				}
				if why == "parse error" {
					why = c.wants(name)
				}
				return fmt.Sprintf("%s %s: %s", dashed(name), val, why)
			}
		}
	}
	for prefix, format := range map[string]string{
		"flag provided but not defined: -": "unknown flag %s",
		"flag needs an argument: -":        "%s needs a value",
	} {
		if name, ok := strings.CutPrefix(msg, prefix); ok {
			return fmt.Sprintf(format, dashed(strings.TrimPrefix(name, "-")))
		}
	}
	return msg
}

// wants says what value the flag name takes, for a value it could not parse.
func (c *cmdFlags) wants(name string) string {
	f := c.Lookup(name)
	if f == nil {
		return "invalid value"
	}
	switch f.Value.(flag.Getter).Get().(type) {
	case int, int64, uint, uint64:
		return "not a whole number"
	case float64:
		return "not a number"
	case time.Duration:
		return "not a duration (e.g. 30s, 10m, 1h)"
	case bool:
		return "want true or false"
	}
	return "invalid value"
}

// printHelp writes the synopsis, the paragraph about the command and every
// flag with its value's name, usage and default.
func (c *cmdFlags) printHelp(w io.Writer) {
	fmt.Fprintf(w, "usage: %s\n\n", c.synopsis)
	if c.about != "" {
		fmt.Fprintf(w, "%s\n\n", c.about)
	}
	n := 0
	c.VisitAll(func(*flag.Flag) { n++ })
	if n == 0 {
		return
	}
	fmt.Fprintln(w, "flags:")
	c.VisitAll(func(f *flag.Flag) {
		name, usage := flag.UnquoteUsage(f)
		if name == "value" {
			name = ""
		}
		line := "  " + dashed(f.Name)
		if name != "" {
			line += " " + name
		}
		fmt.Fprintln(w, line)
		if d := f.DefValue; d != "" && d != "false" && d != "0" && !strings.Contains(usage, "default") {
			usage += fmt.Sprintf(" (default %s)", d)
		}
		fmt.Fprintf(w, "      %s\n", strings.ReplaceAll(usage, "\n", "\n      "))
	})
}

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

// boolean registers a boolean flag that remembers whether it was given
// (--denoise, --denoise=false).
func (c *cmdFlags) boolean(name, usage string, dst *boolFlag) {
	dst.report = func(s string, err error) { c.err = fmt.Errorf("%s %s: %w", dashed(name), s, err) }
	c.Var(dst, name, usage)
}

// boolFlag is a boolean flag that remembers whether it was given.
type boolFlag struct {
	v, set bool
	report func(string, error)
}

func (b *boolFlag) String() string   { return fmt.Sprint(b.v) }
func (b *boolFlag) IsBoolFlag() bool { return true }
func (b *boolFlag) Set(s string) error {
	switch strings.ToLower(s) {
	case "true", "1", "yes", "on":
		b.v = true
	case "false", "0", "no", "off":
		b.v = false
	default:
		err := errors.New("want true or false")
		if b.report != nil {
			b.report(s, err)
		}
		return err
	}
	b.set = true
	return nil
}

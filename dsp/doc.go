// Package dsp decodes audio to PCM and measures it in one streaming pass:
// EBU R128 / ITU-R BS.1770-4 loudness, true and sample peak, a 10 ms RMS
// envelope, the noise floor and an automatic silence threshold.
//
// Samples flow one way through small stages: a Stream (a decoder) yields
// interleaved float32 frames, and sinks such as the Analyzer consume them.
// Nothing in this package holds a whole file in memory.
package dsp

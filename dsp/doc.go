// Package dsp decodes audio to PCM and measures it in one streaming pass:
// EBU R128 / ITU-R BS.1770-4 loudness, true and sample peak, a 10 ms RMS
// envelope (without the input's DC offset, offset.go), the noise floor, the speech level, the automatic pause
// threshold (PauseThreshold) and a voice classification of the frames
// where level alone cannot tell speech from its background (voice.go),
// with the spectrum of those frames in 16 bands (bands.go), by which the
// planner tells a music bed's notes from a word's edges.
// From the envelope it also finds an input's ends turned down, background
// and speech alike (GainDrop, gain.go: a normaliser's or a fade's).
//
// The voice classifier is the Silero VAD v5 network (internal/silero, a
// pure-Go port whose output matches onnxruntime's to 1e-6), run on the
// downmix resampled to 16 kHz, only where level cannot decide: frames
// between the local floor + 4 dB and + 18 dB in runs of 200 ms or more,
// and, over a loud bed (the recent levels' 10th percentile within 30 dB
// of their 95th), every frame over the floor band. Over a quiet bed level
// decides everything and the network does not run. The syllabic rhythm of
// the whole input (SyllabicDepth) and the amount of speech found decide
// whether the classification is used at all (NonSpeech).
//
// It was kept after scoring the per-frame features side by side in the
// same planner on the same real-speech mixes (internal/corpus, 168 cases,
// podcast preset). Periodicity (the normalised cross-correlation at
// 70-400 Hz lags, the previous classifier), spectral flatness and the 4 Hz
// level modulation had been compared before: periodicity won, but music is
// as periodic as speech (69-80 % of the music-bed frames that level
// cannot decide scored as voiced, 49-92 % of the speech frames over
// music). The network scores 89-99 % of those speech frames as speech and
// 2-20 % of the music-bed frames; in the same planner (before its raw
// islands narrowed with the edges placed by the bed), music beds went
// from 12.5 / 63.0 / 92.4 % of the removable pause time cut (10 / 15 / 20
// dB) with periodicity to 63.3 / 89.2 / 90.1 %, crosstalk at 15 dB from 31
// to 40 %, and the vinyl and static cases at 10 dB no longer clip words
// (50 ms before); with the narrowing, 69.7 / 92.2 / 92.6 % and 45 %, and
// with the faint-voice rule comparing a voice's loudest 50 ms with the
// speech level less the depth less 5 dB (NonSpeech), 77.7 / 95.6 / 94.2 %
// and 95.4 %. It costs more: about 215x realtime for the network alone on
// one core, so a noisy bed analyses at some 120-160x realtime
// (periodicity: about 1000x); a file whose pauses are quiet does not run
// it and stays over 1000x.
//
// Samples flow one way through small stages: a Stream (a decoder) yields
// interleaved float32 frames, and sinks such as the analyzer consume them.
// Nothing in this package holds a whole file in memory.
//
// Decoders read an io.Reader (Decode, AnalyzeReader, Decoder.Decode) and
// name its format from its first bytes (Sniff, sniffLen), never from a
// file name: WAV and MP3 natively, everything else through ffmpeg, fed by
// a pipe. The functions on paths (Open, AnalyzeFile, AnalyzeWith, Probe)
// are thin wrappers that open the file; a file is handed to ffmpeg by path,
// so that ffmpeg can seek in it, which an MP4 whose index follows its
// media needs (NeedsSeek, ErrNotStreamable). An MP3 file opened by path is
// analysed in two halves side by side, each with its own decoder (see
// Analyze), as one MP3 decoder would bound the analysis.
package dsp

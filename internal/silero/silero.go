// Package silero runs the Silero VAD v5 voice activity detector (16 kHz
// branch) in pure Go: the probability that each 32 ms chunk of 16 kHz
// audio holds speech. The weights (silero_vad_v5_16k.bin, MIT licence, see
// LICENSE.silero) were converted from the ONNX model by ./gen; the network
// is a Hann-windowed STFT (256 points, hop 128) of the chunk and 64 samples
// of the one before, four 3-tap convolutions with ReLU (strides 1, 2, 2,
// 1), an LSTM cell of 128 and a 1x1 convolution with a sigmoid.
package silero

import (
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sync"
)

// The stream's shape.
const (
	Rate    = 16000 // samples a second
	Chunk   = 512   // samples a probability covers (32 ms)
	Context = 64    // samples of the previous chunk each chunk sees
	NFFT    = 256   // STFT length
	Hop     = 128   // STFT hop
	Bins    = NFFT/2 + 1
	hidden  = 128
	frames  = (Context+Chunk+Context-NFFT)/Hop + 1 // STFT frames a chunk makes (4)
)

//go:embed silero_vad_v5_16k.bin
var weightFile []byte

// TensorNames lists the model's tensors in the weight file's order.
func TensorNames() []string {
	return []string{
		"encoder.0.reparam_conv.weight", "encoder.0.reparam_conv.bias",
		"encoder.1.reparam_conv.weight", "encoder.1.reparam_conv.bias",
		"encoder.2.reparam_conv.weight", "encoder.2.reparam_conv.bias",
		"encoder.3.reparam_conv.weight", "encoder.3.reparam_conv.bias",
		"decoder.rnn.weight_ih", "decoder.rnn.weight_hh",
		"decoder.rnn.bias_ih", "decoder.rnn.bias_hh",
		"decoder.decoder.2.weight", "decoder.decoder.2.bias",
	}
}

// Basis returns the model's STFT basis, [2*Bins][NFFT] flattened: the
// real then the imaginary part of the DFT, times a periodic Hann window.
func Basis() []float32 {
	out := make([]float32, 2*Bins*NFFT)
	for k := range Bins {
		for n := range NFFT {
			w := 0.5 - 0.5*math.Cos(2*math.Pi*float64(n)/NFFT)
			a := 2 * math.Pi * float64(k*n%NFFT) / NFFT
			out[k*NFFT+n] = float32(w * math.Cos(a))
			out[(Bins+k)*NFFT+n] = float32(-w * math.Sin(a))
		}
	}
	return out
}

// conv is a 1-D convolution of 3 taps, padding 1: w[o] holds the taps of
// every input channel, [i][k] flattened, as the im2col rows are laid out.
type conv struct {
	in, out, stride int
	w, b            []float32
}

// Model holds the weights. It is read-only and safe for concurrent use.
type Model struct {
	win  [NFFT]float32
	tw   [NFFT / 2]complex64 // FFT twiddles
	rev  [NFFT]uint8         // bit reversal
	enc  [4]conv
	lstm []float32 // [4*hidden][2*hidden]: weight_ih and weight_hh side by side, gates i, f, g, o
	bias []float32 // bias_ih + bias_hh
	dw   []float32
	db   float32
}

var (
	loadOnce sync.Once
	loaded   *Model
	loadErr  error
)

// Load returns the embedded model (decoded once).
func Load() (*Model, error) {
	loadOnce.Do(func() { loaded, loadErr = parse(weightFile) })
	return loaded, loadErr
}

func parse(b []byte) (*Model, error) {
	sizes := []int{128 * Bins * 3, 128, 64 * 128 * 3, 64, 64 * 64 * 3, 64, 128 * 64 * 3, 128,
		4 * hidden * hidden, 4 * hidden * hidden, 4 * hidden, 4 * hidden, hidden, 1}
	var ts [][]float32
	for i, n := range sizes {
		if len(b) < 4 {
			return nil, errors.New("silero: weight file truncated")
		}
		if c := int(binary.LittleEndian.Uint32(b)); c != n {
			return nil, fmt.Errorf("silero: tensor %s has %d values, want %d", TensorNames()[i], c, n)
		}
		b = b[4:]
		if len(b) < 4*n {
			return nil, errors.New("silero: weight file truncated")
		}
		t := make([]float32, n)
		for j := range t {
			t[j] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*j:]))
		}
		ts, b = append(ts, t), b[4*n:]
	}
	if len(b) != 0 {
		return nil, errors.New("silero: trailing bytes in the weight file")
	}
	m := &Model{}
	for n := range NFFT {
		m.win[n] = float32(0.5 - 0.5*math.Cos(2*math.Pi*float64(n)/NFFT))
		r := 0
		for b := 0; b < 8; b++ {
			r |= (n >> b & 1) << (7 - b)
		}
		m.rev[n] = uint8(r)
	}
	for k := range m.tw {
		a := -2 * math.Pi * float64(k) / NFFT
		m.tw[k] = complex(float32(math.Cos(a)), float32(math.Sin(a)))
	}
	shape := [4][3]int{{Bins, 128, 1}, {128, 64, 2}, {64, 64, 2}, {64, 128, 1}}
	for i := range m.enc {
		m.enc[i] = conv{in: shape[i][0], out: shape[i][1], stride: shape[i][2], w: ts[2*i], b: ts[2*i+1]}
	}
	m.lstm = make([]float32, 4*hidden*2*hidden)
	for r := range 4 * hidden {
		copy(m.lstm[r*2*hidden:], ts[8][r*hidden:(r+1)*hidden])
		copy(m.lstm[r*2*hidden+hidden:], ts[9][r*hidden:(r+1)*hidden])
	}
	m.bias = make([]float32, 4*hidden)
	for i := range m.bias {
		m.bias[i] = ts[10][i] + ts[11][i]
	}
	m.dw, m.db = ts[12], ts[13][0]
	return m, nil
}

// Stream runs the model over consecutive chunks of one signal. Nothing in
// Process allocates.
type Stream struct {
	m    *Model
	x    [Context + Chunk + Context]float32
	ctx  [Context]float32
	hx   [2 * hidden]float32 // the LSTM's input then its hidden state
	c    [hidden]float32
	fft  [NFFT]complex64
	act  [2][frames][Bins]float32 // layer activations by time, ping-pong
	col  [(Bins * 3)]float32      // im2col row
	gate [4 * hidden]float32
	d4   [4]float32 // dot4's results
}

// NewStream returns a stream at the start of a signal.
func (m *Model) NewStream() *Stream { return &Stream{m: m} }

// Reset forgets the signal so far.
func (s *Stream) Reset() {
	s.ctx, s.hx, s.c = [Context]float32{}, [2 * hidden]float32{}, [hidden]float32{}
}

// dotGo returns the dot product of a and b[:len(a)]: four running sums of
// every fourth product, the rest added to the first, then (s0+s1)+(s2+s3).
// dot is this order everywhere; on amd64 it runs in SSE (dot_amd64.s),
// four sums in one register, to the same bits.
func dotGo(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+3 < len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// Process returns the speech probability of the next Chunk samples.
func (s *Stream) Process(chunk []float32) float32 {
	m := s.m
	x := s.x[:]
	copy(x, s.ctx[:])
	copy(x[Context:], chunk[:Chunk])
	copy(s.ctx[:], chunk[Chunk-Context:Chunk])
	// Reflect-pad Context samples on the right.
	n := Context + Chunk
	for j := range Context {
		x[n+j] = x[n-2-j]
	}
	// STFT magnitudes: a radix-2 FFT of each windowed frame.
	in := &s.act[0]
	for t := range frames {
		f := x[t*Hop : t*Hop+NFFT]
		for i := range NFFT {
			s.fft[m.rev[i]] = complex(f[i]*m.win[i], 0)
		}
		for size := 2; size <= NFFT; size <<= 1 {
			half, step := size/2, NFFT/size
			for st := 0; st < NFFT; st += size {
				for k := range half {
					w := m.tw[k*step]
					a, b := s.fft[st+k], s.fft[st+k+half]*w
					s.fft[st+k], s.fft[st+k+half] = a+b, a-b
				}
			}
		}
		for k := range Bins {
			v := s.fft[k]
			in[t][k] = float32(math.Sqrt(float64(real(v)*real(v) + imag(v)*imag(v))))
		}
	}
	// Encoder: 3-tap convolutions with ReLU, by im2col rows.
	tl, cur := frames, 0
	for li := range m.enc {
		cv := &m.enc[li]
		src, dst := &s.act[cur], &s.act[1-cur]
		to := (tl+2-3)/cv.stride + 1
		col := s.col[:cv.in*3]
		for t := range to {
			for i := range cv.in {
				for k := range 3 {
					v := float32(0)
					if p := t*cv.stride + k - 1; p >= 0 && p < tl {
						v = src[p][i]
					}
					col[i*3+k] = v
				}
			}
			w := cv.w
			o := 0
			for ; o+3 < cv.out; o += 4 {
				dot4(col, w[o*len(col):], len(col), &s.d4)
				for k, d := range s.d4 {
					dst[t][o+k] = max(cv.b[o+k]+d, 0)
				}
			}
			for ; o < cv.out; o++ {
				dst[t][o] = max(cv.b[o]+dot(col, w[o*len(col):]), 0)
			}
		}
		cur, tl = 1-cur, to
	}
	// LSTM cell (PyTorch gate order i, f, g, o) on the single step left.
	copy(s.hx[:hidden], s.act[cur][0][:hidden])
	for r := 0; r < 4*hidden; r += 4 { // 4*hidden rows: a multiple of 4
		dot4(s.hx[:], m.lstm[r*2*hidden:], 2*hidden, &s.d4)
		for k, d := range s.d4 {
			s.gate[r+k] = m.bias[r+k] + d
		}
	}
	out := m.db
	for j := range hidden {
		ig := sigmoid(s.gate[j])
		fg := sigmoid(s.gate[hidden+j])
		gg := float32(math.Tanh(float64(s.gate[2*hidden+j])))
		og := sigmoid(s.gate[3*hidden+j])
		s.c[j] = fg*s.c[j] + ig*gg
		h := og * float32(math.Tanh(float64(s.c[j])))
		s.hx[hidden+j] = h
		out += m.dw[j] * max(h, 0)
	}
	return sigmoid(out)
}

func sigmoid(x float32) float32 { return float32(1 / (1 + math.Exp(-float64(x)))) }

// Reference probabilities for the silero package's test: runs the Silero
// VAD v5 ONNX model with onnxruntime-web (WebAssembly, in node) over a
// 16 kHz mono signal of raw little-endian float32 samples, chunk by chunk
// as the package does (512 samples and 64 of context, state carried), and
// writes the probabilities as JSON.
//
//	npm install onnxruntime-web@1.30.0
//	sox en_librivox_sense_sensibility_0870.wav -t f32 librivox.f32
//	node ref.mjs silero_vad_v5.onnx librivox.f32 > ref_librivox.json
import * as ort from 'onnxruntime-web';
import fs from 'fs';

ort.env.wasm.numThreads = 1;
const sess = await ort.InferenceSession.create(fs.readFileSync(process.argv[2]));
const raw = fs.readFileSync(process.argv[3]);
const x = new Float32Array(raw.buffer, raw.byteOffset, raw.length / 4);
let state = new ort.Tensor('float32', new Float32Array(2 * 128), [2, 1, 128]);
const sr = new ort.Tensor('int64', BigInt64Array.from([16000n]), []);
let ctx = new Float32Array(64);
const out = [];
for (let i = 0; i + 512 <= x.length; i += 512) {
  const inp = new Float32Array(576);
  inp.set(ctx, 0);
  inp.set(x.subarray(i, i + 512), 64);
  ctx = x.slice(i + 448, i + 512);
  const r = await sess.run({ input: new ort.Tensor('float32', inp, [1, 576]), state, sr });
  state = r.stateN;
  out.push(Number(r.output.data[0].toFixed(6)));
}
console.log(JSON.stringify(out));

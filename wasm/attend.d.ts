// Types of the Attend WebAssembly module (attend.js) and its Web Worker wrapper (attend-client.js).

export interface LoadOptions {
  /** Called while the model downloads: bytes so far and in all (0 when the server gives no length). */
  onProgress?: (loadedBytes: number, totalBytes: number) => void;
  /** Force the SIMD (true) or plain (false) build; default: detect. */
  simd?: boolean;
  /** Name used in error messages. */
  name?: string;
}

/** Each option is checked: a value of the wrong type or out of its range is an Error naming it (null: default). */
export interface TranslateOptions {
  /** Beam size, 1 to 64; 1 is greedy search. Default 5. */
  beam?: number;
  /** Most tokens to generate, <eos> included, 0 to 4096; 0: the model's limit. Default 0. */
  maxLength?: number;
  /** At most ceil(ratio x source tokens) + 10 tokens are generated; 0: no limit relative to the source. Default 2. */
  maxLengthRatio?: number;
  /** alpha in log P / L^alpha. Default: the model's own (info().decoding), else 0.6. */
  lengthPenalty?: number;
  /** URLs, e-mail addresses and numbers are copied into the translation unchanged. Default true. */
  copyThrough?: boolean;
  /** Never generate an n-gram of this size twice (0: off), 0 to 64. Default 4. */
  noRepeatNgramSize?: number;
  /** Logits of tokens generated before are divided by this (> 1 discourages repeats; 1: off). Default 1. */
  repetitionPenalty?: number;
  /** No token more than this many times in a row (0: off), 0 to 1000. Default 3. */
  maxTokenRun?: number;
  /** No character more than this many times in a row unless the source has such a run (0: off), 0 to 1000. Default 4. */
  maxCharRun?: number;
  /** Return every attention map. Default true. */
  attention?: boolean;
}

/** Attention weights of every layer and head: layers[l][h] is a rows x cols Float32Array (row-major). */
export interface AttentionMaps {
  layers: Float32Array[][];
  /** All maps in one buffer, [layers, heads, rows, cols]. */
  data: Float32Array;
  shape: [number, number, number, number];
}

export interface Translation {
  text: string;
  /** Tokenized lowercase words, BPE undone (what BLEU is computed on). */
  tokenized: string;
  sourceTokens: string[];
  targetTokens: string[];
  targetIds: number[];
  score: number;
  logProb: number;
  /** false: cut by the length limit before the model ended it (a warning says so). */
  finished: boolean;
  /** What happened to this translation: the source cut to the model's limit, the output cut by the length limit. */
  warnings: string[];
  /** cross: target x source; encoderSelf: source x source; decoderSelf: target x target (causal). */
  attention?: { cross: AttentionMaps; encoderSelf: AttentionMaps; decoderSelf: AttentionMaps };
  timings: { preprocessMs: number; searchMs: number; attentionMs: number; totalMs: number };
}

export interface ModelInfo {
  architecture: string;
  source_language: string;
  target_language: string;
  config: Record<string, unknown>;
  parameters: number;
  dtype: 'F32' | 'F16' | 'I8';
  file_bytes: number;
  source_vocab_size: number;
  target_vocab_size: number;
  max_source_tokens: number;
  card: Record<string, unknown>;
  /** The defaults translate() uses: the model file's own length penalty (tuned on validation data) or 0.6. */
  decoding: { length_penalty: number; length_penalty_from_model: boolean };
}

/** One sentence of a document: its place in the input and its translation. */
export interface DocumentSentence extends Translation {
  /** The sentence is input.slice(begin, end) (UTF-16 indices, as JavaScript strings count). */
  begin: number;
  end: number;
  /** 0-based input line. */
  line: number;
}

export interface DocumentTranslation {
  /** The translations: a line's sentences joined with spaces, the input's lines and empty lines kept. */
  text: string;
  /** Every sentence's warnings, each starting with where it is ("line 2, sentence 1: ..."). */
  warnings: string[];
  sentences: DocumentSentence[];
}

export declare class AttendTranslator {
  readonly simd: boolean;
  info(): ModelInfo;
  /** Throws for empty text, a lone surrogate, or an option out of range; over-long text is cut, with a warning. */
  translate(text: string, options?: TranslateOptions | null): Promise<Translation>;
  /** Any text: split into sentences (Moses' rules), each translated; a sentence that fails leaves a warning. */
  translateDocument(text: string, options?: TranslateOptions | null): Promise<DocumentTranslation>;
  dispose(): void;
}

/** Whether this engine runs the SIMD build (WebAssembly SIMD and exception handling). */
export declare function simdSupported(): boolean;

export declare const Attend: {
  simdSupported(): boolean;
  load(source: string | URL | ArrayBuffer | Uint8Array, options?: LoadOptions): Promise<AttendTranslator>;
};
export default Attend;

export declare class AttendWorker {
  static load(source: string | URL | ArrayBuffer | Uint8Array, options?: LoadOptions & { workerUrl?: URL }): Promise<AttendWorker>;
  info(): ModelInfo;
  translate(text: string, options?: TranslateOptions | null): Promise<Translation>;
  translateDocument(text: string, options?: TranslateOptions | null): Promise<DocumentTranslation>;
  dispose(): Promise<void>;
}

// ---------------------------------------------------------------- the attention lab (attend-lab.js)

export type Numbers = ArrayLike<number>;

export interface AttentionResult {
  /** [B, Tq, Dv] */
  output: Float32Array;
  /** Attention weights after the mask, [B, Tq, Tk]; each row sums to 1 (0 for a row with no valid key). */
  weights: Float32Array;
  /** Scores before the mask and the softmax, [B, Tq, Tk]. */
  scores: Float32Array;
}

export interface NadarayaWatsonData {
  xTrain: Float32Array;
  yTrain: Float32Array;
  xTest: Float32Array;
  yTruth: Float32Array;
  /** The parametric model's initial w (torch.rand((1,))). */
  w0: number;
}

/** The seeds' teaching examples computed by the C++ core in WebAssembly. */
export declare class AttendLab {
  static load(options?: { simd?: boolean }): Promise<AttendLab>;
  readonly simd: boolean;
  /** d2l masked_softmax of x [B, Tq, Tk]; validLens: one per batch row [B] or per query [B * Tq]. */
  maskedSoftmax(x: Numbers, shape: [number, number, number], validLens?: Numbers | null): Float32Array;
  /** d2l AdditiveAttention: queries [B,Tq,Dq], keys [B,Tk,Dk], values [B,Tk,Dv], Wq [H,Dq], Wk [H,Dk], wv [H]. */
  additiveAttention(args: {
    queries: Numbers; keys: Numbers; values: Numbers; Wq: Numbers; Wk: Numbers; wv: Numbers;
    validLens?: Numbers | null;
    shape: { B: number; Tq: number; Tk: number; Dq: number; Dk: number; H: number; Dv: number };
  }): AttentionResult;
  /** d2l DotProductAttention: queries [B,Tq,D], keys [B,Tk,D], values [B,Tk,Dv]; scale defaults to 1/sqrt(D). */
  dotProductAttention(args: {
    queries: Numbers; keys: Numbers; values: Numbers; validLens?: Numbers | null; scale?: number;
    shape: { B: number; Tq: number; Tk: number; D: number; Dv: number };
  }): AttentionResult;
  /** weights = softmax(scores) over the first validLen keys (all when < 0); context = weights x values [Tk, Dv]. */
  attentionPool(scores: Numbers, values: Numbers, Dv: number, validLen?: number): { weights: Float32Array; context: Float32Array };
  /** The sinusoidal positional encoding table, [T, C]. */
  positionalEncoding(T: number, C: number): Float32Array;
  normal(n: number, seed?: number, offset?: number): Float32Array;
  uniform(n: number, seed?: number, offset?: number): Float32Array;
  nwData(options?: { nTrain?: number; nTest?: number; seed?: number }): NadarayaWatsonData;
  /** Kernel regression of each query on all training pairs; w = 1 is the non-parametric estimator. */
  nwPredict(queries: Numbers, xTrain: Numbers, yTrain: Numbers, w?: number): { output: Float32Array; attention: Float32Array };
  /** One SGD epoch of the seed's NWKernelRegression training (summed squared error, lr 0.5 by default). */
  nwTrainEpoch(xTrain: Numbers, yTrain: Numbers, w: number, lr?: number): { loss: number; dw: number; w: number };
}

// Types of the attention lab (attend-lab.js, the package's ./lab): the seeds' teaching examples on the C++ core's
// kernels in WebAssembly.

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

export default AttendLab;

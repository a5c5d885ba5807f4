// Types of the Attend WebAssembly module (attend.js) and its Web Worker wrapper (attend-client.js).

export interface LoadOptions {
  /** Called while the model downloads: bytes so far and in all (0 when the server gives no length). */
  onProgress?: (loadedBytes: number, totalBytes: number) => void;
  /** Force the SIMD (true) or plain (false) build; default: detect. */
  simd?: boolean;
  /** Name used in error messages. */
  name?: string;
}

export interface TranslateOptions {
  /** Beam size; 1 is greedy search. Default 5. */
  beam?: number;
  /** Most tokens to generate, <eos> included; 0 picks 2 x source tokens + 10. */
  maxLength?: number;
  /** alpha in log P / L^alpha. Default 0.6. */
  lengthPenalty?: number;
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
  finished: boolean;
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
}

export declare class AttendTranslator {
  readonly simd: boolean;
  info(): ModelInfo;
  translate(text: string, options?: TranslateOptions): Promise<Translation>;
  dispose(): void;
}

export declare function simdSupported(): boolean;

export declare const Attend: {
  simdSupported(): boolean;
  load(source: string | URL | ArrayBuffer | Uint8Array, options?: LoadOptions): Promise<AttendTranslator>;
};
export default Attend;

export declare class AttendWorker {
  static load(source: string | URL | ArrayBuffer | Uint8Array, options?: LoadOptions & { workerUrl?: URL }): Promise<AttendWorker>;
  info(): ModelInfo;
  translate(text: string, options?: TranslateOptions): Promise<Translation>;
  dispose(): Promise<void>;
}

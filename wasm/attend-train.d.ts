// Types of the trainer (attend-train.js, the package's ./train): the seeds' translators trained in the page by the
// C++ core in WebAssembly, on the same training step as `attend train`, and their character language models on the
// same step as `attend lm train`.

export declare const trainablePresets: readonly ['bahdanau-d2l', 'transformer-d2l'];
export type TrainablePreset = (typeof trainablePresets)[number];
export declare const languageModelPresets: readonly ['rnn-d2l', 'gru-d2l', 'lstm-d2l', 'deep-lstm-d2l', 'birnn-d2l'];
export type LanguageModelPreset = (typeof languageModelPresets)[number];
/** The most text a language model trainer takes, in UTF-8 bytes. */
export declare const maxLanguageModelText: number;
/** The most threads (data-parallel ranks) a translator trainer takes. */
export declare const maxTrainerThreads: number;
/** True where a trainer can train on several threads: SharedArrayBuffer (in a browser, a cross-origin isolated page)
 * and WebAssembly SIMD. */
export declare function threadsSupported(): boolean;
/** The threads a trainer takes by default: min(navigator.hardwareConcurrency, maxTrainerThreads) on a cross-origin
 * isolated page where threadsSupported(), else 1 (in Node too: ask for threads there). */
export declare function defaultTrainerThreads(): number;

export interface LanguageModelTrainerOptions {
  /** The seed of the initial weights and the iterators' offsets (1, as `attend lm train`). */
  seed?: number;
  /** The SGD learning rate (the preset's: 1, or 2 for deep-lstm-d2l). */
  lr?: number;
  /** The run's length in epochs (the preset's 500), recorded in info().options for the caller to keep. */
  epochs?: number;
  /** The first characters after d2l's cleaning that train (the preset's 10000; 0: all). */
  chars?: number;
  /** d2l's random sampling instead of sequential partitioning. */
  randomIter?: boolean;
  /** The WebAssembly SIMD build (default: when the engine supports it). */
  simd?: boolean;
}

export interface LanguageModelTrainerInfo {
  preset: LanguageModelPreset;
  description: string;
  rnn: 'rnn' | 'gru' | 'lstm';
  hiddenSize: number;
  layers: number;
  bidirectional: boolean;
  parameters: number;
  /** The character vocabulary in id order ("<unk>" first), learned from the whole cleaned text. */
  vocab: string[];
  trainChars: number;
  batchesPerEpoch: number;
  options: { lr: number; epochs: number; batch: number; steps: number; randomIter: boolean; seed: number };
}

export interface LanguageModelStep {
  /** 1-based over the trainer's life. */
  step: number;
  /** 0-based epoch of the batch, its index and the epoch's batch count. */
  epoch: number;
  batch: number;
  batches: number;
  /** Mean cross-entropy of the batch's predictions. */
  loss: number;
  /** The global gradient norm before clipping (to 1). */
  gradNorm: number;
  /** The epoch's last batch: epochPerplexity is d2l's training perplexity of that epoch. */
  epochDone: boolean;
  epochPerplexity?: number;
}

/** A character language model being trained; each call runs synchronously (step in small slices, or from a Worker). */
export declare class AttendLmTrainer {
  readonly simd: boolean;
  info(): LanguageModelTrainerInfo;
  /** Trains `steps` batches (1 by default), into the next epoch after an epoch's last. */
  step(steps?: number): LanguageModelStep[];
  /** d2l's predict_ch8: the prefix and `length` (50) greedy characters after it. */
  predict(prefix: string, length?: number): string;
  /** The model as a language model file (F32 safetensors) that `attend lm sample` and Attend.loadLanguageModel read. */
  exportModel(): Uint8Array;
  dispose(): void;
}

export interface TrainerOptions {
  /** Pairs that train (the preset's 600); the next validPairs validate (200). */
  trainPairs?: number;
  validPairs?: number;
  /** The seed of the initialisation, the batch order and dropout (the preset's 1). */
  seed?: number;
  /** The learning rate (the preset's 0.005). */
  lr?: number;
  /** The run's length in epochs (the preset's: 250 or 200), recorded in info().options for the caller to keep. */
  epochs?: number;
  /** The WebAssembly SIMD build (default: when the engine supports it). */
  simd?: boolean;
  /** Data-parallel ranks, one per thread, each on its share of every batch (default: defaultTrainerThreads()).
   * More than 1 needs threadsSupported() and the SIMD build. */
  threads?: number;
}

export interface TrainerInfo {
  preset: string;
  architecture: 'bahdanau' | 'transformer';
  parameters: number;
  trainPairs: number;
  validPairs: number;
  sourceVocab: number;
  targetVocab: number;
  /** The threads (data-parallel ranks) it trains on. */
  threads: number;
  /** The run's options as `attend train` saves them. */
  options: Record<string, unknown>;
}

export interface TrainStep {
  /** 1-based over the trainer's life. */
  step: number;
  /** 0-based epoch of the batch, its index and the epoch's batch count. */
  epoch: number;
  batch: number;
  batches: number;
  lr: number;
  /** Mean loss per target token of this batch. */
  loss: number;
  /** The epoch's last batch: epochLoss is the seeds' printed loss over that epoch. */
  epochDone: boolean;
  epochLoss?: number;
}

export interface TrainerTranslation {
  text: string;
  sourceTokens: string[];
  targetTokens: string[];
  /** Cross attention: weights [layers, heads, rows, cols], a row per target token and a column per source token
   * (their <eos> included). */
  attention: { layers: number; heads: number; rows: number; cols: number; weights: Float32Array };
  /** With a reference: the seeds' bleu (k = 2) of the translation's words against it, 0 to 1. */
  bleu?: number;
}

/** A translator being trained; each call runs synchronously (step in small slices, or from a Worker). */
export declare class AttendTrainer {
  /** pairs: TSV text ("source<TAB>target[<TAB>...]" lines) or [source, target] pairs. */
  static create(preset: TrainablePreset, pairs: string | ReadonlyArray<readonly [string, string]>,
    options?: TrainerOptions): Promise<AttendTrainer>;
  /** A character language model trained on a text (a string, or its UTF-8 bytes). */
  static createLanguageModel(preset: LanguageModelPreset, text: string | Uint8Array | ArrayBuffer,
    options?: LanguageModelTrainerOptions): Promise<AttendLmTrainer>;
  readonly simd: boolean;
  /** The threads (data-parallel ranks) it trains on: 1 on the module without threads. */
  readonly threads: number;
  info(): TrainerInfo;
  /** Trains `steps` batches (1 by default). */
  step(steps?: number): TrainStep[];
  /** Validation loss and greedy BLEU over the validation pairs. */
  validate(): { valLoss: number; valBleu: number };
  /** Greedy translation by the model as it is now, with its cross attention (and BLEU against a reference). */
  translate(text: string, options?: { reference?: string }): TrainerTranslation;
  /** The model as a model file (F32 safetensors) that Attend.load and `attend translate` read. */
  exportModel(): Uint8Array;
  dispose(): void;
}

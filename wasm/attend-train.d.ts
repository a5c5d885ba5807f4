// Types of the trainer (attend-train.js, the package's ./train): the seeds' translators trained in the page by the
// C++ core in WebAssembly, on the same training step as `attend train`.

export declare const trainablePresets: readonly ['bahdanau-d2l', 'transformer-d2l'];
export type TrainablePreset = (typeof trainablePresets)[number];

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
}

export interface TrainerInfo {
  preset: string;
  architecture: 'bahdanau' | 'transformer';
  parameters: number;
  trainPairs: number;
  validPairs: number;
  sourceVocab: number;
  targetVocab: number;
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
  readonly simd: boolean;
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

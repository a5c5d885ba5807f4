// Types of the Attend WebAssembly module (attend.js). The Web Worker client (attend-client.js, the package's
// ./worker) and the attention lab (attend-lab.js, ./lab) have their own: attend-client.d.ts, attend-lab.d.ts.

export interface LoadOptions {
  /**
   * Called while the model downloads: bytes so far and in all (0 when the server gives no length), and where they
   * come from. A model read from the cache or a local file is reported once, whole.
   */
  onProgress?: (loadedBytes: number, totalBytes: number, from: 'network' | 'cache' | 'file') => void;
  /** Force the SIMD (true) or plain (false) build; default: detect. */
  simd?: boolean;
  /** Name used in error messages. */
  name?: string;
  /**
   * Keep a model downloaded from a URL in the Cache API cache 'attend-models', keyed by its URL, and load it
   * from there next time (no network). Default true; false: always download, and store nothing. Where there is no
   * Cache API (Node, a page that is not a secure context) every load downloads. A cached entry whose length is not
   * the length it was stored with is downloaded again. A model replaced at the same URL is noticed only through
   * size: give new versions new URLs, pass size, or pass false.
   */
  cache?: boolean;
  /**
   * The model file's size in bytes, where the caller knows it (a model list's entry): a cached copy of another size
   * is out of date and downloaded again, and used only if that download fails.
   */
  size?: number | null;
  /** Aborting stops the download and rejects with signal.reason (an AbortError DOMException when it has none). */
  signal?: AbortSignal;
  /**
   * The most bytes a model download or file may have (default DEFAULT_MAX_BYTES, 512 MiB): a larger one is refused
   * before it is read where its length is known (Content-Length, the file's size, the size its header declares),
   * else as soon as it passes this. A download is also stopped once it exceeds the size its header declares.
   */
  maxBytes?: number;
  /** A download that delivers no data for this many milliseconds fails (default DEFAULT_STALL_TIMEOUT_MS, 30 s). */
  stallTimeoutMs?: number;
}

/**
 * Each option is checked: a value of the wrong type or out of its range is an Error naming it (null: default).
 * The defaults are AttendTranslator.defaultOptions(), the ranges of the numbers AttendTranslator.optionBounds().
 */
export interface TranslateOptions {
  /** Beam size; 1 is greedy search. Default 5. Range 1..64. */
  beam?: number;
  /** Most tokens to generate, <eos> included; 0: the model's limit. Default 0. Range 0..4096. */
  maxLength?: number;
  /** Most source tokens translated, <eos> included, 0 or at least 2; 0: the model's limit. A longer sentence is cut, with a warning. Default 0. Range 0..4096. */
  maxInputLength?: number;
  /** At most ceil(ratio x source tokens) + 10 tokens are generated; 0: no limit relative to the source. Default 2. Range 0..1000. */
  maxLengthRatio?: number;
  /** alpha in log P / L^alpha. Default: the model's own (info().decoding), else 0.6. Range -1e6..1e6. */
  lengthPenalty?: number;
  /** URLs, e-mail addresses, numbers and (cased models, English or French source) names inside a sentence are copied into the translation unchanged, and the model writes in digits only the source's numbers. Default true. */
  copyThrough?: boolean;
  /** A sentence in capitals ("TWO DOGS PLAY") is translated in sentence case and its translation put in capitals. Default true. */
  recaseCapitals?: boolean;
  /**
   * A markup tag or mark on a word ("<b>dog</b>", "**dog**") goes around the words of the translation that the
   * model's cross attention aligns with it; false: at the same share of the words. Default true.
   */
  alignMarkup?: boolean;
  /**
   * Beam search prefers a translation that closes the quotation marks and round brackets it opens (and closes none it
   * did not open), where the source's own marks pair up; greedy search cannot look ahead. Default true.
   */
  closeMarks?: boolean;
  /** Never generate an n-gram of this size twice (0: off). Default 4. Range 0..64. */
  noRepeatNgramSize?: number;
  /** Logits of tokens generated before are divided by this (> 1 discourages repeats; 1: off). Default 1. Range above 0..1e6. */
  repetitionPenalty?: number;
  /** No token more than this many times in a row (0: off). Default 3. Range 0..1000. */
  maxTokenRun?: number;
  /**
   * No piece inside a word (a BPE piece such as "ter@@") more than this many times in a row ("Lotterterterielt"),
   * unless the source has it so (0: off). Default 2. Range 0..1000.
   */
  maxPieceRun?: number;
  /**
   * Never generate a phrase of 2 to this many tokens right after itself ("in midair in midair"), unless the source
   * has it so (0: off). Default 8. Range 0..64.
   */
  noAdjacentRepeatSize?: number;
  /** No character more than this many times in a row unless the source has such a run (0: off). Default 4. Range 0..1000. */
  maxCharRun?: number;
  /**
   * translateDocument() translates a sentence of more words than this clause by clause (split at semicolons and at a
   * comma before "and", "und", "et"), each clause a sentence of the result; 0: never. Default 24. Range 0..100000.
   */
  clauseSplitWords?: number;
  /**
   * A translation whose confidence is below this (0..1) gets lowConfidence and a warning: the text is likely unlike
   * what the model was trained on, and the translation invented; 0: never. Default: the model's own, else 0. Range 0..1.
   */
  minConfidence?: number;
  /**
   * Name the source words the translation may have left out (Translation.omittedWords, with a warning): each source
   * word without which the model finds its own translation more likely by more than this many nats (contrastive
   * conditioning; 0..1000). 0: never checked; otherwise the translation is scored once more per source word. The
   * shipped models' values, chosen on validation data, are models.json's `omission_gain`. Default 0. Range 0..1000.
   */
  omissionGain?: number;
  /**
   * For each target token, its distribution's this many most probable tokens (Translation.alternatives), 0..100;
   * 0: none. Default 0. Range 0..100.
   */
  alternatives?: number;
  /**
   * Target tokens the translation begins with (pieces as TokenAlternatives names them: "Groß@@" goes on into a longer
   * word); the search goes on from the last one. A token the model's vocabulary lacks, "<eos>", or more tokens than
   * the length limit allows is refused. translateDocument: the first sentence's. Default none.
   */
  targetPrefix?: readonly string[];
  /** Return every attention map. Default true (this API's own choice; the C++ core's is false). */
  attention?: boolean;
  /**
   * Return the query and key vectors of every layer and head of each dot-product attention (Translation.neurons),
   * from the teacher-forced pass over the chosen translation that gives the attention maps; for bertviz's neuron
   * view (neuronView()). A Transformer only: a GRU + Bahdanau model's additive attention has none, and its
   * translations have no neurons. Default false (it costs that pass and the copies; the search is untouched).
   */
  neurons?: boolean;
  /**
   * Rejects with signal.reason (an AbortError DOMException when it has none) if aborted before the result. With a
   * signal the work waits one turn of the event loop first, so that an abort already on its way arrives; an array is
   * checked again before each sentence. (On the main thread a sentence, once started, runs to its end.)
   */
  signal?: AbortSignal;
}

/** What translate() uses where a call leaves an option out (the core's defaults; the Default lines above). */
export type DefaultOptions = Required<Omit<TranslateOptions, 'signal' | 'targetPrefix'>>;

/** The range of a number option: min to max (min excluded when aboveMin), whole numbers only when integer. */
export interface OptionBounds {
  min: number;
  max: number;
  integer: boolean;
  aboveMin: boolean;
}

/**
 * One option as the core's option table has it (the table `attend translate` and `attend eval` take their flags
 * from): the name here, the C++ TranslationOptions field, the CLI's long flag (null: none of its own), its type, its
 * default (the core's; attention: this API's own), whether a model file may name its own default (then
 * defaultOptions() has that one), a number's bounds, and the CLI's help text.
 */
export interface OptionTableRow {
  name: keyof DefaultOptions;
  field: string;
  flag: string | null;
  type: 'integer' | 'number' | 'boolean';
  default: number | boolean;
  modelDefault: boolean;
  min?: number;
  max?: number;
  aboveMin?: boolean;
  help: string;
}

/** Attention weights of every layer and head: layers[l][h] is a rows x cols Float32Array (row-major). */
export interface AttentionMaps {
  layers: Float32Array[][];
  /** All maps in one buffer, [layers, heads, rows, cols]. */
  data: Float32Array;
  shape: [number, number, number, number];
}

/**
 * The query and key vectors of one kind of attention: q [layers, heads, queries, dim] and k [layers, heads, keys,
 * dim], row-major, as the attention reads them (after the projection, split into heads). The weight of key j for
 * query i in layer l, head h is the softmax, over the keys query i may see (decoderSelf: keys 0..i; the others: all),
 * of q[l,h,i] . k[l,h,j] / sqrt(dim): the attention map's cell [l][h][i * keys + j]. Queries and keys are the rows
 * and columns of the maps of the same kind.
 */
export interface QueryKeyVectors {
  layers: number;
  heads: number;
  queries: number;
  keys: number;
  dim: number;
  q: Float32Array;
  k: Float32Array;
}

/** Query and key vectors of each kind of attention (TranslateOptions.neurons). */
export interface AttentionNeurons {
  encoderSelf: QueryKeyVectors;
  decoderSelf: QueryKeyVectors;
  cross: QueryKeyVectors;
}

/** One key of neuronView(): its vector, the elementwise product with the query (summing to dot), the score and weight. */
export interface NeuronKey {
  key: number;
  k: number[];
  product: number[];
  /** q . k, the sum of product. */
  dot: number;
  /** dot / sqrt(dim): the score before the softmax. */
  score: number;
  /** true: the query may not see this key (decoder self attention's later positions); weight 0. */
  masked: boolean;
  /** softmax of the scores over the keys the query sees: the attention map's weight. */
  weight: number;
}

/** What bertviz's neuron view shows for one query of one layer and head. */
export interface NeuronView {
  q: number[];
  dim: number;
  /** 1 / sqrt(dim) */
  scale: number;
  rows: NeuronKey[];
}

/**
 * The neuron view of a translation's neurons for one query token: kind 'encoderSelf' | 'decoderSelf' | 'cross',
 * layer, head and query (row of the attention map). Throws an Error when the kind has no vectors (a Bahdanau model)
 * and a RangeError for a layer, head or query out of range.
 */
export declare function neuronView(
  neurons: AttentionNeurons,
  at: { kind: 'encoderSelf' | 'decoderSelf' | 'cross'; layer: number; head: number; query: number },
): NeuronView;

/** A source word and log P(translation | source without it) - log P(translation | source), in nats. */
export interface SourceWordGain {
  word: string;
  gain: number;
}

/** One target token and the most probable tokens of the distribution the search took it from (after its repetition controls). */
export interface TokenAlternatives {
  /** The target vocabulary's token written here (targetTokens shows a copied span's own text instead). */
  token: string;
  /** Its probability there (0..1; greedy search writes the most probable). */
  probability: number;
  /** The most probable tokens, most probable first; probabilities in (0, 1], summing to at most 1. */
  tokens: string[];
  ids: number[];
  probabilities: number[];
}

export interface Translation {
  text: string;
  /** Tokenized words in the model's case, BPE undone (what BLEU scores). */
  tokenized: string;
  sourceTokens: string[];
  targetTokens: string[];
  targetIds: number[];
  score: number;
  logProb: number;
  /** false: cut by the length limit before the model ended it (a warning says so). */
  finished: boolean;
  /** true: most of the source is unknown to the model (another script, emoji); text is the source unchanged (a warning says so). */
  untranslated: boolean;
  /** The geometric mean of the probabilities the model gave the tokens it wrote, in (0, 1]; 0 when untranslated. */
  confidence: number;
  /** confidence below minConfidence (a warning says so). */
  lowConfidence: boolean;
  /**
   * Source words the translation may have left out: their gain is above options.omissionGain (a warning names them).
   * Empty when nothing was checked (omissionGain 0) or nothing was found.
   */
  omittedWords: string[];
  /** With options.omissionGain > 0: every source word with a letter or digit and its gain, in source order. */
  sourceWordGains?: SourceWordGain[];
  /**
   * What happened to this translation: the source cut to the model's limit, the output cut by the length limit, a
   * low confidence.
   */
  warnings: string[];
  /** cross: target x source; encoderSelf: source x source; decoderSelf: target x target (causal). */
  attention?: { cross: AttentionMaps; encoderSelf: AttentionMaps; decoderSelf: AttentionMaps };
  timings: { preprocessMs: number; searchMs: number; attentionMs: number; totalMs: number };
  /** With options.alternatives > 0: one per target token (none when untranslated). */
  alternatives?: TokenAlternatives[];
  /** With options.neurons, a Transformer's translation: the query and key vectors of every attention. */
  neurons?: AttentionNeurons;
}

/** What info() returns: camelCase keys, each two-word one also under its snake_case name for older callers. */
export interface ModelInfo {
  architecture: string;
  sourceLanguage: string;
  targetLanguage: string;
  /** The model file's attend.config as written (its keys are the file's own). */
  config: Record<string, unknown>;
  parameters: number;
  dtype: 'F32' | 'F16' | 'I8';
  fileBytes: number;
  sourceVocabSize: number;
  targetVocabSize: number;
  /** Longest source, <eos> included; longer text is cut, with a warning. */
  maxSourceTokens: number;
  /** The model file's card as written. */
  card: Record<string, unknown>;
  /** The length penalty translate() uses: the model file's own (tuned on validation data) or the core's default. */
  decoding: DecodingDefaults;

  /** @deprecated use sourceLanguage */
  source_language: string;
  /** @deprecated use targetLanguage */
  target_language: string;
  /** @deprecated use fileBytes */
  file_bytes: number;
  /** @deprecated use sourceVocabSize */
  source_vocab_size: number;
  /** @deprecated use targetVocabSize */
  target_vocab_size: number;
  /** @deprecated use maxSourceTokens */
  max_source_tokens: number;
}

export interface DecodingDefaults {
  lengthPenalty: number;
  /** true: lengthPenalty comes from the model file; false: it is the core's general default. */
  lengthPenaltyFromModel: boolean;
  /** @deprecated use lengthPenalty */
  length_penalty: number;
  /** @deprecated use lengthPenaltyFromModel */
  length_penalty_from_model: boolean;
  /** Translations below this confidence are flagged (the model's own threshold, else 0). */
  minConfidence: number;
  /** @deprecated use minConfidence */
  min_confidence: number;
  /** The names that stand for a text's names while it is translated, in order of use (the model's own, else the default). */
  namePlaceholders: string[];
  /** @deprecated use namePlaceholders */
  name_placeholders: string[];
  /**
   * [first, last]: the cross attention layers whose mean places markup on the words it marks (alignMarkup): the
   * model's own choice, else every layer.
   */
  alignmentLayers: [number, number];
  /** true: alignmentLayers comes from the model file. */
  alignmentLayersFromModel: boolean;
  /** @deprecated use alignmentLayers */
  alignment_layers: [number, number];
  /** @deprecated use alignmentLayersFromModel */
  alignment_layers_from_model: boolean;
}

/** One sentence of a document: its place in the input and its translation. */
export interface DocumentSentence extends Translation {
  /** The sentence is input.slice(begin, end) (UTF-16 indices, as JavaScript strings count). */
  begin: number;
  end: number;
  /** 0-based input line. */
  line: number;
  /**
   * What comes before it in the document's text: '' first on its line, ' ' after another sentence; after the clause
   * before it in its sentence (a long sentence is translated clause by clause), '; ' or ', ' and the target
   * language's conjunction (', und ').
   */
  joiner: string;
  /**
   * Its translation as it reads in the document's text: a clause joined to the next without its final mark, one
   * joined to the one before starting in lower case where the target language writes it so ('' when it failed).
   */
  placedText: string;
}

export interface DocumentTranslation {
  /** The translations: each line's sentences, joiner + placedText, one after another; the input's lines kept. */
  text: string;
  /** Every sentence's warnings, each starting with where it is ("line 2, sentence 1: ..."). */
  warnings: string[];
  sentences: DocumentSentence[];
}

/** Where load() found the model's bytes: the Cache API, the network, a local file (Node), or the caller's bytes. */
export type ModelSource = 'cache' | 'network' | 'file' | 'memory';

export declare class AttendTranslator {
  readonly simd: boolean;
  readonly loadedFrom: ModelSource;
  info(): ModelInfo;
  /** The core's defaults for this model (its own length penalty where its file has one), attention: true. */
  defaultOptions(): DefaultOptions;
  optionBounds(): Record<'beam' | 'maxLength' | 'maxInputLength' | 'maxLengthRatio' | 'lengthPenalty' |
    'noRepeatNgramSize' | 'repetitionPenalty' | 'maxTokenRun' | 'maxPieceRun' | 'noAdjacentRepeatSize' | 'maxCharRun' |
    'clauseSplitWords' | 'minConfidence' | 'omissionGain' | 'alternatives', OptionBounds>;
  /** Every option of TranslateOptions but signal and targetPrefix: optionBounds()' numbers, then the booleans. */
  optionTable(): OptionTableRow[];
  /** Rejects for empty text, a lone surrogate, or an option out of range; over-long text is cut, with a warning. */
  translate(text: string, options?: TranslateOptions | null): Promise<Translation>;
  /**
   * Each text in turn, the results in input order ([] for []). A non-string element is a TypeError naming its
   * index, before anything is translated; a sentence that fails rejects the whole call, its index in the message.
   */
  translate(texts: readonly string[], options?: TranslateOptions | null): Promise<Translation[]>;
  /** Any text: split into sentences (Moses' rules), each translated; a sentence that fails leaves a warning. */
  translateDocument(text: string, options?: TranslateOptions | null): Promise<DocumentTranslation>;
  /** The module's WebAssembly memory in bytes (shared by the translators of one build): it grows, never shrinks. */
  heapBytes(): number;
  dispose(): void;
}

/** A character language model's config (attend.config of an 'attend-language-model' file). */
export interface LanguageModelConfig {
  architecture: 'char-rnn-lm';
  rnn: 'rnn' | 'gru' | 'lstm';
  vocab_size: number;
  hidden_size: number;
  num_layers: number;
  bidirectional: boolean;
}

export interface LanguageModelInfo {
  config: LanguageModelConfig;
  /** The tokens by id: '<unk>' first, then single characters. */
  vocab: string[];
  parameters: number;
  dtype: 'F32' | 'F16' | 'I8';
  card: Record<string, unknown>;
}

export interface GenerateOptions {
  /** Characters to generate (default 50). */
  length?: number;
  /** 0 (default): greedy, as d2l's predict_ch8; otherwise sample from softmax(logits / temperature). */
  temperature?: number;
  /** Sample among the K most likely characters (0, the default: all). */
  topK?: number;
  /** The draws' seed: the same seed gives the same text, here and natively (attend lm sample --seed). */
  seed?: number;
}

export interface GenerationStep {
  token: string;
  id: number;
  /** The model's next-character distribution (softmax of its logits, over vocab) before this character. */
  distribution: Float32Array;
}

export interface Generation {
  /** The prefix followed by the continuation. */
  text: string;
  continuation: string;
  prefixIds: number[];
  ids: number[];
  vocab: string[];
  steps: GenerationStep[];
}

/**
 * A character language model (d2l's RNN, GRU or LSTM on The Time Machine, trained by `attend lm train`). The prefix
 * is read one character at a time, as d2l's predict_ch8; characters outside the vocabulary read as '<unk>'.
 */
export declare class AttendLanguageModel {
  readonly simd: boolean;
  readonly loadedFrom: 'cache' | 'network' | 'file' | 'memory';
  readonly info: LanguageModelInfo;
  generate(prefix: string, options?: GenerateOptions): Generation;
  dispose(): void;
}

/** The Cache API cache that load() keeps downloaded models in (caches.delete(MODEL_CACHE) empties it). */
export declare const MODEL_CACHE: 'attend-models';
/**
 * Stores bytes made in this browser (a model trained in web/train.html) in MODEL_CACHE under `url` (resolved
 * against the page), so that Attend.load(url) and storedModelBytes(url) find them; `note`, any JSON-able value,
 * is kept beside them. Resolves to the absolute URL used as the key; rejects, naming the reason, where the browser
 * has no Cache API or refuses the bytes (the quota, say).
 */
export declare function storeModelBytes(url: string | URL, bytes: Uint8Array, note?: unknown): Promise<string>;
/**
 * The bytes MODEL_CACHE holds under `url` and the note stored with them (null when none), or null when no whole
 * entry is there (never stored, cleared by the user, cut short) or there is no Cache API.
 */
export declare function storedModelBytes(url: string | URL): Promise<{ bytes: Uint8Array; note: unknown } | null>;
/** The default of LoadOptions.maxBytes: 512 MiB. */
export declare const DEFAULT_MAX_BYTES: number;
/** The default of LoadOptions.stallTimeoutMs: 30,000 ms. */
export declare const DEFAULT_STALL_TIMEOUT_MS: number;

/** Whether this engine runs the SIMD build (WebAssembly SIMD and exception handling). */
export declare function simdSupported(): boolean;

export declare const Attend: {
  simdSupported(): boolean;
  load(source: string | URL | ArrayBuffer | Uint8Array, options?: LoadOptions): Promise<AttendTranslator>;
  /** A language model file ('attend-language-model'); a translator file is refused, saying so. */
  loadLanguageModel(source: string | URL | ArrayBuffer | Uint8Array, options?: LoadOptions): Promise<AttendLanguageModel>;
};
export default Attend;

// Type-only, for code that imported these types from here: the classes live in ./worker and ./lab.
export type { AttendWorker, WorkerLoadOptions } from './attend-client.js';
export type { AttendLab, AttentionResult, NadarayaWatsonData, Numbers } from './attend-lab.js';

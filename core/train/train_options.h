// What a translator's training run is: the data (CorpusOptions), the model, the schedule and the loss
// (TrainOptions), as a checkpoint saves them and a resume reads them back. Plain data, the same natively and in
// the browser; the presets (train/presets.h) fill them, and the native trainer (native/train/trainer.h) and the
// step (train/train_step.h) read them.
#pragma once
#include "model/bahdanau_seq2seq.h"
#include "model/transformer_config.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace attend {

struct CorpusOptions {
    std::string data_dir;          // ../shared/data unless set
    std::string dataset = "multi30k";  // or "tatoeba", or "files"
    std::string source_lang = "en", target_lang = "de";
    int bpe_merges = 10000;        // joint BPE on source + target training text
    int min_freq = 1;              // vocabulary threshold (after BPE)
    bool joint_vocab = true;       // one vocabulary for both sides (required to tie embeddings)
    int max_train_sentences = 0;   // 0: all (tests use a few hundred)
    int max_tokens_per_sentence = 200;  // longer training pairs are dropped (and counted); tatoeba: never (the
                                        // trainer truncates to num_steps, as the seeds do)
    int val_sentences = 200;       // tatoeba: validation pairs after the training ones
    // multi30k: false trains on the official lowercased tok/ files; true on the raw, cased files run through the
    // same Moses normalization and tokenization without lowercasing (the model then writes capitals itself).
    bool cased = false;
    bool split_digits = false;     // BPE never merges a digit (numbers are copied digit by digit)
    // multi30k: training targets read from these files (raw text, a line for each training pair, e.g. teachers'
    // translations of the training sources: sequence-level knowledge distillation), each file's pairs in place of
    // the data set's. The BPE and the vocabularies are still learned on the data set's own text, so the model reads
    // and writes as its teachers do; validation scores against the real references.
    std::vector<std::string> train_target_files;
    // With train_target_files: the data set's own pairs are kept beside the files', so each training source appears
    // once with its reference and once with each file's target (distillation on both).
    bool with_references = false;
    // multi30k: training sources read from these files (raw text, a line for each training pair, e.g. reverse
    // models' translations of the training targets: back-translation), each paired with the data set's target and
    // added to the training pairs above.
    std::vector<std::string> train_source_files;

    // files: corpus sources (data/parallel_corpus.h: "a.en,a.de", "pairs.tsv:columns=2,1:weight=3"), any language
    // code in source_lang / target_lang.
    std::vector<std::string> train_sets;
    std::vector<std::string> valid_sets;  // none: valid_size source sentences of the training sets are held out
    // Their pairs' sentences (either side) never train: a training pair that shares a side with one is dropped.
    std::vector<std::string> test_sets;
    int valid_size = 1000;             // distinct source sentences held out (with every pair that has one)
    int split_seed = 1;                // which ones: fixed by this seed, not by the training seed
    std::string subwords = "unigram";  // SentencePiece algorithm: unigram or bpe
    int vocab_size = 8000;             // pieces, the four specials and 256 bytes included
    double character_coverage = 0;     // share of the characters the pieces cover; 0: 0.9995 for an unspaced
                                       // language (Chinese, Japanese, ...), else 1
    int subword_sample = 1000000;      // at most this many sentences (both sides) learn the subword model
    int max_line_bytes = 4096;         // a longer line is skipped and counted
};

// A key that is missing takes the default; data_dir belongs to each call, not to the run. A run saved with one
// file a side ("train_target_file": "a.de") reads as a list of that one.
void to_json(nlohmann::json& j, const CorpusOptions& o);
void from_json(const nlohmann::json& j, CorpusOptions& o);

// transformer-tiny's model: 4+4 layers, C 128, 4 heads, ffn 256, tied embeddings (train/presets.h).
inline TransformerConfig tiny_transformer_config() {
    TransformerConfig c;
    c.model_dim = 128;
    c.heads = 4;
    c.encoder_layers = c.decoder_layers = 4;
    c.ffn_dim = 256;
    c.dropout = 0.2f;
    c.tie_embeddings = true;
    c.max_len = 256;
    return c;
}

// The defaults are the default preset's, transformer-tiny, whose recipe transformer-tiny-cased shares; the other
// presets change what differs (transformer-tiny-cased-wu: the recipe of the shipped en->de and en->fr models).
struct TrainOptions {
    std::string preset;
    CorpusOptions corpus;
    std::string architecture = "transformer";  // or "bahdanau"
    TransformerConfig model = tiny_transformer_config();  // architecture "transformer" (vocabulary sizes: the corpus)
    BahdanauConfig rnn;  // architecture "bahdanau", the seeds' sizes (vocabularies, num_steps, pad from the run)
    // Learning rate: peak `lr` after `warmup_steps` of linear warmup, then lr * sqrt(warmup / step); warmup_steps 0:
    // a constant lr (the seeds).
    float lr = 1e-3f;
    int warmup_steps = 500;
    // The last cooldown_epochs epochs scale that rate linearly down to 0 at the end of the run (0: no cooldown).
    // A resuming call may set it (a long run can get its cooldown when it is resumed); -1 keeps the run's own.
    // 0 here although transformer-tiny uses 25: saved options without the key mean a run without a cooldown.
    int cooldown_epochs = 0;
    float beta1 = 0.9f, beta2 = 0.98f, adam_eps = 1e-9f, weight_decay = 0.0f;
    float label_smoothing = 0.1f;
    float clip_norm = 0.0f;        // 0: no clipping
    int max_tokens = 4096;         // per batch, padding included (num_steps 0)
    int num_steps = 0;             // > 0: the seeds' batches: batch_size sentences truncated / padded to num_steps
    int batch_size = 64;           // sentences per batch when num_steps > 0
    std::string loss = "cross_entropy";  // or "masked_softmax_ce": the seeds' MaskedSoftmaxCELoss, l.sum() per batch
    std::string init = "scaled";         // or "seeds" (train/trainable_model.h)
    // A new run may start from a model file's parameters, tokenizers and vocabularies instead of an initialisation
    // (fine-tuning: e.g. on the references alone after training on synthetic data); the options must describe the
    // same model shape. Adam starts afresh. Saved with the run's options as a record; a resume ignores it.
    std::string start_from;
    int validate_every = 1;        // epochs between validations (the last epoch always validates)
    // A resuming call may set it (a run can be made longer or shorter); 0 keeps the run's own.
    int epochs = 125;
    int64_t max_steps = 0;         // 0: no limit
    uint64_t seed = 1;
    std::string out_dir = "runs/model";
    int checkpoint_every = 1000;   // steps; also at every epoch end
    int keep_checkpoints = 10;
    int log_every = 50;
    int val_bleu_sentences = 0;    // 0: the whole validation set
    int average_last = 10;         // at the end, also export the mean of the last N checkpoints (0, 1: none)
    // The model a run hands over: "best" (best.safetensors, written at each validation that beats the others) or
    // "final" (final.safetensors, the weights at the end, as the seeds keep theirs: on 600 training pairs a
    // validation slice ranks noise).
    std::string keep_model = "best";
    int threads = 0;               // 0: OpenMP's default
    // "cpu" or "cuda" (train/train_device.h). cuda runs each step on the GPU (Transformer + cross_entropy only); the
    // checkpoints are the same files, so a resumed run may switch device (the device of the resuming call counts).
    std::string device = "cpu";
    // cuda: the arithmetic of the matrix products, "fp32", "tf32" or "bf16" (train/gemm_precision.h); the CPU trains
    // in fp32 only. Like the device, the resuming call's choice counts.
    std::string precision = "fp32";
    // A new run into a folder that holds another run's checkpoints or log moves those files aside
    // (move_run_files_aside) instead of refusing to start. Belongs to the call, like out_dir: never saved.
    bool overwrite = false;
};

// Tokens in one batch, padding included: what a step's work scales with.
int64_t tokens_per_batch(const TrainOptions& o);
// The CPU threads a step of this size trains on: `available`, or 1 where the step is too small for a second thread
// to gain anything (its parallel regions would cost more than they save).
int training_threads(int64_t parameters, int64_t tokens_per_batch, int available);

// A run's RNN options in its saved options: what it chooses; a model file stores the whole config
// (bahdanau_config_to_json).
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(BahdanauConfig, embed_size, num_hiddens, num_layers, dropout, max_len,
                                                bidirectional)

// The options a checkpoint saves and a resume reads back; a key that is missing takes TrainOptions' default.
// out_dir and threads belong to each call, not to the run.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(TrainOptions, preset, corpus, architecture, model, rnn, lr,
                                                warmup_steps, cooldown_epochs, beta1, beta2, adam_eps, weight_decay,
                                                label_smoothing, clip_norm, max_tokens, num_steps, batch_size, loss,
                                                init, start_from, validate_every, epochs, max_steps, seed,
                                                checkpoint_every, keep_checkpoints, log_every, val_bleu_sentences,
                                                average_last, keep_model, device, precision)

inline nlohmann::json train_options_to_json(const TrainOptions& o) { return o; }
inline TrainOptions train_options_from_json(const nlohmann::json& j) { return j.get<TrainOptions>(); }

}  // namespace attend

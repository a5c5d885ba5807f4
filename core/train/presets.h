// The training recipes `attend train --preset` starts from: transformer-tiny (Multi30K, joint BPE 10k, 4+4 layers,
// C 128, ...), transformer-tiny-cased (the same on the raw cased text, digits split), transformer-base (seed 001's
// model), everyday-<src>-<tgt> (Multi30K + Tatoeba, raw-text subwords), transformer-d2l and bahdanau-d2l (the seeds'
// configurations on the first 600 Tatoeba pairs), bahdanau-multi30k.
#pragma once
#include <string>
#include <vector>

namespace attend {

struct TrainOptions;  // train/train_options.h

// Throws attend::Error naming the known presets.
TrainOptions train_preset(const std::string& name);
std::vector<std::string> train_preset_names();  // the first is the default

}  // namespace attend

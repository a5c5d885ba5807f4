#include "text/sentencepiece_library.h"

#include <sentencepiece_processor.h>
#include <sentencepiece_trainer.h>

#include <cstring>
#include <unordered_map>

#include "error.h"

namespace attend {

namespace {

class VectorIterator : public sentencepiece::SentenceIterator {
public:
    explicit VectorIterator(const std::vector<std::string>& sentences) : sentences_(sentences) {}
    bool done() const override { return index_ >= sentences_.size(); }
    void Next() override { ++index_; }
    const std::string& value() const override { return sentences_[index_]; }
    sentencepiece::util::Status status() const override { return {}; }

private:
    const std::vector<std::string>& sentences_;
    std::size_t index_ = 0;
};

// ---------------------------------------------------------------- a minimal protobuf reader
// Just what ModelProto needs: varints, length-delimited fields and fixed32 floats; other fields are skipped.

struct ProtoField {
    std::uint32_t number = 0;
    std::uint32_t wire_type = 0;
    std::uint64_t varint = 0;  // wire type 0, and the raw bits of wire types 1 and 5
    std::string_view bytes;    // wire type 2
};

class ProtoReader {
public:
    explicit ProtoReader(std::string_view data) : data_(data) {}
    bool next(ProtoField& field) {
        if (data_.empty()) return false;
        const std::uint64_t key = varint();
        field.number = static_cast<std::uint32_t>(key >> 3);
        field.wire_type = static_cast<std::uint32_t>(key & 7);
        field.bytes = {};
        field.varint = 0;
        switch (field.wire_type) {
            case 0: field.varint = varint(); break;
            case 1: field.varint = fixed(8); break;
            case 2: {
                const std::uint64_t size = varint();
                if (size > data_.size()) fail("a field runs past the end");
                field.bytes = data_.substr(0, size);
                data_.remove_prefix(size);
                break;
            }
            case 5: field.varint = fixed(4); break;
            default: fail("unsupported wire type " + std::to_string(field.wire_type));
        }
        return true;
    }

private:
    [[noreturn]] static void fail(const std::string& why) {
        throw Error("SentencePiece model proto: " + why);
    }
    std::uint64_t varint() {
        std::uint64_t value = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (data_.empty()) fail("a varint runs past the end");
            const auto byte = static_cast<unsigned char>(data_[0]);
            data_.remove_prefix(1);
            value |= static_cast<std::uint64_t>(byte & 0x7F) << shift;
            if (!(byte & 0x80)) return value;
        }
        fail("a varint is too long");
    }
    std::uint64_t fixed(std::size_t size) {
        if (data_.size() < size) fail("a fixed-size field runs past the end");
        std::uint64_t value = 0;
        for (std::size_t i = 0; i < size; ++i)
            value |= static_cast<std::uint64_t>(static_cast<unsigned char>(data_[i])) << (8 * i);
        data_.remove_prefix(size);
        return value;
    }
    std::string_view data_;
};

// ModelProto field numbers (sentencepiece_model.proto).
enum : std::uint32_t { kPieces = 1, kTrainerSpec = 2, kNormalizerSpec = 3, kDenormalizerSpec = 5 };
enum : std::uint32_t { kPieceText = 1, kPieceScore = 2, kPieceType = 3 };
enum : std::uint32_t { kModelType = 3, kTreatWhitespaceAsSuffix = 24, kByteFallback = 35, kUnkSurface = 44 };
enum : std::uint32_t {
    kRuleName = 1,
    kPrecompiledCharsmap = 2,
    kAddDummyPrefix = 3,
    kRemoveExtraWhitespaces = 4,
    kEscapeWhitespaces = 5,
    kRuleTsv = 6
};

SentencePieceModel::PieceType piece_type(std::uint64_t proto_type) {
    using T = SentencePieceModel::PieceType;
    switch (proto_type) {
        case 1: return T::normal;
        case 2: return T::unknown;
        case 3: return T::control;
        case 4: return T::user_defined;
        case 5: return T::unused;
        case 6: return T::byte;
        default:
            throw Error("SentencePiece model proto: unknown piece type " + std::to_string(proto_type));
    }
}

std::string train(const std::vector<std::string>& sentences, const SentencePieceTrainOptions& options) {
    const bool unigram = options.algorithm == SentencePieceModel::Algorithm::unigram;
    const std::unordered_map<std::string, std::string> args = {
        {"model_type", unigram ? "unigram" : "bpe"},
        {"vocab_size", std::to_string(options.vocab_size)},
        {"character_coverage", std::to_string(options.character_coverage)},
        {"num_threads", std::to_string(options.num_threads)},
        {"input_sentence_size", std::to_string(options.input_sentence_size)},
        {"shuffle_input_sentence", options.shuffle_input_sentence ? "true" : "false"},
        {"max_sentence_length", std::to_string(options.max_sentence_length)},
        {"split_digits", options.split_digits ? "true" : "false"},
        {"normalization_rule_name", "identity"},
        {"byte_fallback", "true"},
        {"unk_id", "0"},
        {"pad_id", "1"},
        {"bos_id", "2"},
        {"eos_id", "3"},
        {"unk_piece", "<unk>"},
        {"pad_piece", "<pad>"},
        {"bos_piece", "<bos>"},
        {"eos_piece", "<eos>"},
        {"minloglevel", options.verbose ? "0" : "1"},
    };
    sentencepiece::SetRandomGeneratorSeed(options.seed);
    VectorIterator iterator(sentences);
    std::string proto;
    const auto status = sentencepiece::SentencePieceTrainer::Train(args, &iterator, &proto);
    if (!status.ok()) throw Error(std::string("SentencePiece training failed: ") + status.message());
    return proto;
}

}  // namespace

std::string train_sentencepiece_proto(const std::vector<std::string>& sentences,
                                      const SentencePieceTrainOptions& options) {
    return train(sentences, options);
}

SentencePieceModel train_sentencepiece(const std::vector<std::string>& sentences,
                                       const SentencePieceTrainOptions& options) {
    return model_from_serialized_proto(train(sentences, options));
}

SentencePieceModel model_from_serialized_proto(std::string_view serialized) {
    const std::string what = "SentencePiece model proto: ";
    SentencePieceModel::Options options;
    options.byte_fallback = false;  // the proto's default
    std::vector<SentencePieceModel::Piece> pieces;

    ProtoReader model(serialized);
    ProtoField field;
    while (model.next(field)) {
        if (field.number == kPieces && field.wire_type == 2) {
            SentencePieceModel::Piece piece;
            ProtoReader reader(field.bytes);
            ProtoField f;
            while (reader.next(f)) {
                if (f.number == kPieceText && f.wire_type == 2) piece.text = std::string(f.bytes);
                if (f.number == kPieceScore && f.wire_type == 5) {
                    const auto bits = static_cast<std::uint32_t>(f.varint);
                    std::memcpy(&piece.score, &bits, sizeof bits);
                }
                if (f.number == kPieceType && f.wire_type == 0) piece.type = piece_type(f.varint);
            }
            pieces.push_back(std::move(piece));
        } else if (field.number == kTrainerSpec && field.wire_type == 2) {
            ProtoReader reader(field.bytes);
            ProtoField f;
            while (reader.next(f)) {
                if (f.number == kModelType && f.wire_type == 0) {
                    if (f.varint == 1)
                        options.algorithm = SentencePieceModel::Algorithm::unigram;
                    else if (f.varint == 2)
                        options.algorithm = SentencePieceModel::Algorithm::bpe;
                    else
                        throw Error(what + "model type " + std::to_string(f.varint) +
                                    " (word or char) is not supported: only unigram and bpe");
                }
                if (f.number == kTreatWhitespaceAsSuffix && f.wire_type == 0 && f.varint != 0)
                    throw Error(what + "treat_whitespace_as_suffix is not supported");
                if (f.number == kByteFallback && f.wire_type == 0) options.byte_fallback = f.varint != 0;
                if (f.number == kUnkSurface && f.wire_type == 2 && f.bytes != SentencePieceModel::kUnknownSurface)
                    throw Error(what + "a custom unk_surface is not supported");
            }
        } else if (field.number == kNormalizerSpec && field.wire_type == 2) {
            ProtoReader reader(field.bytes);
            ProtoField f;
            std::string rule_name = "?";
            while (reader.next(f)) {
                if (f.number == kRuleName && f.wire_type == 2) rule_name = std::string(f.bytes);
                if (f.number == kPrecompiledCharsmap && f.wire_type == 2 && !f.bytes.empty())
                    throw Error(what + "the normalization rule '" + rule_name +
                                "' has a character map, which Attend's encoder does not apply: train with "
                                "--normalization_rule_name=identity");
                if (f.number == kRuleTsv && f.wire_type == 2 && !f.bytes.empty())
                    throw Error(what + "a normalization_rule_tsv is not supported");
                if (f.number == kAddDummyPrefix && f.wire_type == 0) options.add_dummy_prefix = f.varint != 0;
                if (f.number == kRemoveExtraWhitespaces && f.wire_type == 0)
                    options.remove_extra_whitespaces = f.varint != 0;
                if (f.number == kEscapeWhitespaces && f.wire_type == 0 && f.varint == 0)
                    throw Error(what + "escape_whitespaces false is not supported");
            }
        } else if (field.number == kDenormalizerSpec && field.wire_type == 2) {
            ProtoReader reader(field.bytes);
            ProtoField f;
            while (reader.next(f))
                if ((f.number == kPrecompiledCharsmap || f.number == kRuleTsv) && f.wire_type == 2 &&
                    !f.bytes.empty())
                    throw Error(what + "a denormalizer is not supported");
        }
    }

    // The library's own reading of the same bytes must agree, piece by piece.
    sentencepiece::SentencePieceProcessor processor;
    const auto status = processor.LoadFromSerializedProto(serialized);
    if (!status.ok()) throw Error(what + "the SentencePiece library refuses it: " + status.message());
    if (processor.GetPieceSize() != static_cast<int>(pieces.size()))
        throw Error(what + "the library reports " + std::to_string(processor.GetPieceSize()) + " pieces, the proto has " +
                    std::to_string(pieces.size()));
    using T = SentencePieceModel::PieceType;
    for (int id = 0; id < static_cast<int>(pieces.size()); ++id) {
        const auto& piece = pieces[id];
        const bool agrees = processor.IdToPiece(id) == piece.text && processor.GetScore(id) == piece.score &&
                            processor.IsUnknown(id) == (piece.type == T::unknown) &&
                            processor.IsControl(id) == (piece.type == T::control) &&
                            processor.IsByte(id) == (piece.type == T::byte) &&
                            processor.IsUnused(id) == (piece.type == T::unused);
        if (!agrees)
            throw Error(what + "piece " + std::to_string(id) + " '" + piece.text +
                        "' reads differently through the library");
    }
    return SentencePieceModel(options, std::move(pieces));
}

SentencePieceModel model_from_processor(const sentencepiece::SentencePieceProcessor& processor) {
    return model_from_serialized_proto(processor.serialized_model_proto());
}

}  // namespace attend

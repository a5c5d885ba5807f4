// The smallest program that embeds Attend: translate each argument after the model file, one line each, and
// print which source token each output token attends to most (the last layer's cross attention, mean of heads).
//   translate multi30k-en-de-cased.safetensors "A dog runs on the beach." [--attention]
#include <attend/attend.h>

#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s MODEL TEXT... [--attention]\n", argv[0]);
        return 2;
    }
    try {
        const attend::api::Translator translator = attend::api::Translator::load(argv[1]);
        attend::TranslationOptions options = translator.default_options();
        for (int i = 2; i < argc; ++i) options.return_attention |= std::strcmp(argv[i], "--attention") == 0;
        for (int i = 2; i < argc; ++i) {
            if (std::strcmp(argv[i], "--attention") == 0) continue;
            const attend::TranslationResult r = translator.translate(argv[i], options);
            std::printf("%s\n", r.text.c_str());
            if (!options.return_attention) continue;
            const attend::AttentionMaps& a = r.cross;  // [layers, heads, rows (target), cols (source)]
            for (int t = 0; t < a.rows; ++t) {
                int best = 0;
                float best_weight = -1;
                for (int s = 0; s < a.cols; ++s) {
                    float w = 0;
                    for (int h = 0; h < a.heads; ++h)
                        w += a.data[((size_t(a.layers - 1) * a.heads + h) * a.rows + t) * a.cols + s];
                    if (w > best_weight) best_weight = w, best = s;
                }
                std::printf("  %s -> %s\n", r.target_tokens[t].c_str(), r.source_tokens[best].c_str());
            }
        }
    } catch (const attend::Error& e) {
        std::fprintf(stderr, "translate: %s\n", e.what());
        return 1;
    }
    return 0;
}

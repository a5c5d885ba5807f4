#!/usr/bin/env bash
# On a machine with an NVIDIA GPU: the training runs the model issues owe a GPU, several at once on the one GPU
# (CUDA MPS: the tiny model's step is launch-bound, so three or four runs share a GPU well), then the scores of each
# run's checkpoint mean and best model on val and test2016 (beam 5).
#   scripts/gpu-train.sh <build folder> <runs folder> <minutes> <recipe>...
# Every run resumes from its own folder, so calling the script again with the same folders continues where the time
# limit stopped it (a device command may last 10 minutes); runs that have finished are only scored again.
# ATTEND_DATA names the Multi30K folder where ../shared does not travel with the tree.
# Recipes (transformer-tiny sizes, Multi30K; <pair> is ende, enfr, deen or fren):
#   card-<pair>        the shipped cased model's recipe (web/models/multi30k-<src>-<tgt>-cased.md), run again
#   card-<pair>-bf16   the same with --precision bf16 (its BLEU decides whether bf16 may become a default)
#   card-<pair>-ad0    the card's recipe with the attention weights kept (--attention-dropout 0, fairseq's default)
#   wu-<pair>          Wu et al. 2021's Transformer-Tiny recipe on cased text, --preset transformer-tiny-cased-wu
#                      (what the en→de and en→fr models ship with; fairseq, 2 GPUs x 4096 tokens): lr 5e-3, 2,000
#                      warm-up steps then inverse square root, dropout 0.3 and no attention dropout (fairseq's
#                      attention_dropout 0, which their command leaves), 8,192-token batches, 125 epochs, the last
#                      10 checkpoints averaged
#   wu-ende-lc         the same on lowercase text, as in the paper
#   dd2-ende           the shipped en→de model's recipe (web/models/multi30k-en-de-cased.md): the same on the 116,000
#                      diversified pairs (the references, two forward models' German and the de→en model's
#                      back-translations), 80 epochs, the mean of their last 10 checkpoints kept as averaged-e80,
#                      then on to 120 epochs; soup.safetensors is the two means' mean (I8, α 2.6 as shipped).
#                      Reads <runs>/dd/{fwd-ende.de,fwd2-ende.de,bt-deen.en}, which scripts/dd-data.sh makes
#   dd3-ende           the same with a third forward copy, <runs>/dd/fwd3-ende.de (145,000 pairs): the German of an
#                      ensemble of the shipped en→de model and dd2-ende-s2's soup
#   dd-fren            the en→de recipe for fr→en: the references, <runs>/dd/fwd-fren.en (an ensemble's English of
#                      the French captions) and <runs>/dd/bt-enfr.fr (the shipped en→fr model's French of the English
#                      captions), 87,000 pairs, 80 then 120 epochs as dd2-ende
#   everyday-<src>-<tgt> --preset everyday-<src>-<tgt> (en-de, de-en, en-fr, fr-en: Multi30K + Tatoeba, raw-text
#                      subwords) in bf16, validated every 5th epoch; the mean of its last 5 checkpoints is written as <runs>/<recipe>.i8.safetensors
#                      (under 10 MB: it can come back from a device call), scored later where there is time
#   everyday-<src>-<tgt>-more  the same again from <runs>/everyday-<src>-<tgt>.i8.safetensors (--start-from: new Adam
#                      moments, a 500-step warmup to lr 1e-3), for a model whose first device call ended too soon
#   transformer-base   --preset transformer-base (seed 001's model) in bf16; its test2016 BLEU (beam 5) is printed
#   tatoeba-<src>-<tgt> zh-en or en-zh on the eng-cmn split in <runs>/data/eng-cmn/{train,valid,test}.tsv.gz (made by
#                      scripts/split_corpus.py, docs/training.md "Train on your own data"): a 3+3 Transformer, d 256, dropout 0.3,
#                      4,096-token batches, 150 epochs, the last 40 cooling down; exported as <runs>/<recipe>.i8.safetensors
# GPU_TRAIN_FIT=<seconds>: after that many seconds, a run that would not finish its epochs within the minutes is
# interrupted and resumed with as many epochs as its measured step rate leaves time for, the last quarter of them
# cooling down (a run cut off by the time limit never reaches the low learning rate the averaged model needs).
# Any recipe name may end in -s<N> (wu-enfr-s2): the same recipe with --seed N, in its own run folder.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 4 ]; then sed -n "2,/^set -euo/p" "$0" | sed '$d'; exit 2; fi
b=$1 runs=$2 minutes=$3
shift 3
attend="$b/bin/attend"
export OMP_WAIT_POLICY=passive

recipe_args() {  # recipe name [run folder name, when the name has lost its -s<N>]
    local folder=${2:-$1}
    if [[ $1 =~ ^(.+)-s([0-9]+)$ ]]; then
        local seed=${BASH_REMATCH[2]} base
        base=$(recipe_args "${BASH_REMATCH[1]}" "$folder") || return 1
        echo "$base --seed $seed"
        return
    fi
    local wu="--lr 5e-3 --warmup 2000 --max-tokens 8192 --dropout 0.3 --attention-dropout 0 --epochs 125 \
--cooldown-epochs 0 --validate-every 5 --average-last 10 --keep 10"
    local pair variant
    if [[ $1 =~ ^dd(2-ende|3-ende|-fren)$ ]]; then
        # pair, forward copies (the target side made by a model), back-translations (the source side made)
        local -a data
        case $1 in
            dd2-ende) data=(ende "fwd-ende.de fwd2-ende.de" bt-deen.en) ;;
            dd3-ende) data=(ende "fwd-ende.de fwd2-ende.de fwd3-ende.de" bt-deen.en) ;;
            dd-fren) data=(fren fwd-fren.en bt-enfr.fr) ;;
        esac
        local dd="$runs/dd" args f
        args="--preset transformer-tiny-cased-wu --source ${data[0]:0:2} --target ${data[0]:2:2} --with-references"
        for f in ${data[1]}; do args+=" --train-target $dd/$f"; done
        args+=" --train-source $dd/${data[2]}"
        for f in ${data[1]} ${data[2]}; do
            [ -f "$dd/$f" ] || { echo "gpu-train: $1 needs $dd/$f (scripts/dd-data.sh makes dd2-ende's)" >&2; return 1; }
        done
        local epochs=80
        [ -f "$runs/$folder/averaged-e80.safetensors" ] && epochs=120
        echo "$args --epochs $epochs"
        return
    elif [[ $1 =~ ^tatoeba-(zh-en|en-zh)$ ]]; then
        local d="$runs/data/eng-cmn" c=":columns=2,1" f
        [ "$1" = tatoeba-en-zh ] && c=""
        for f in train valid test; do
            [ -f "$d/$f.tsv.gz" ] || { echo "gpu-train: $1 needs $d/$f.tsv.gz (scripts/split_corpus.py)" >&2; return 1; }
        done
        echo "--preset transformer-tiny-cased-wu --source ${1:8:2} --target ${1:11:2} --train $d/train.tsv.gz$c \
--valid $d/valid.tsv.gz$c --test $d/test.tsv.gz$c --test {data}/tatoeba/test/tatoeba-test-v2021-08-07.eng-cmn.tsv$c \
--vocab-size 6000 --dim 256 --ffn 1024 --layers 3 --lr 1.5e-3 --warmup 1000 --max-tokens 4096 --epochs 150 \
--cooldown-epochs 40 --validate-every 10 --val-bleu-sentences 500 --checkpoint-every 200"
        return
    elif [[ $1 =~ ^(everyday-(en-de|de-en|en-fr|fr-en))-more$ ]]; then
        local from="$runs/${BASH_REMATCH[1]}.i8.safetensors"
        [ -f "$from" ] || { echo "gpu-train: $1 needs $from (the everyday recipe's export)" >&2; return 1; }
        echo "--preset ${BASH_REMATCH[1]} --precision bf16 --validate-every 5 --start-from $from --lr 1e-3 --warmup 500"
        return
    elif [[ $1 =~ ^everyday-(en-de|de-en|en-fr|fr-en)$ || $1 == transformer-base ]]; then
        # Validation runs on the CPU while the GPU waits: every 5th (10th) epoch, not the preset's every 2nd (1st).
        local every=5
        [ "$1" = transformer-base ] && every=10
        echo "--preset $1 --precision bf16 --validate-every $every"
        return
    elif [ "$1" = wu-ende-lc ]; then
        echo "--preset transformer-tiny --source en --target de $wu"
        return
    elif [[ $1 =~ ^wu-(ende|enfr|deen|fren)$ ]]; then
        pair=${BASH_REMATCH[1]}
        echo "--preset transformer-tiny-cased-wu --source ${pair:0:2} --target ${pair:2:2}"
        return
    elif [[ $1 =~ ^card-(ende|enfr|deen|fren)(-bf16|-ad0)?$ ]]; then
        pair=${BASH_REMATCH[1]} variant=${BASH_REMATCH[2]}
    else
        echo "gpu-train: unknown recipe '$1' (see the list at the top of $0)" >&2
        return 1
    fi
    local card="--preset transformer-tiny-cased --source ${pair:0:2} --target ${pair:2:2} --epochs 100 \
--cooldown-epochs 20 --validate-every 20"
    case "$variant" in
        -bf16) echo "$card --precision bf16" ;;
        -ad0) echo "$card --attention-dropout 0" ;;
        *) echo "$card" ;;
    esac
}

for r in "$@"; do recipe_args "$r" > /dev/null; done  # every name known before anything starts
nvidia-cuda-mps-control -d 2> /dev/null || true        # already running is fine
mkdir -p "$runs"
deadline=$(($(date +%s) + minutes * 60))
declare -A pid_of
launch() {  # recipe [extra options, replacing the recipe's own --epochs and --cooldown-epochs]
    local r=$1 args resume=""
    args=$(recipe_args "$r")
    if [ $# -gt 1 ]; then args="$(sed -E 's/--(epochs|cooldown-epochs) [0-9]+//g' <<< "$args") $2"; fi
    if [ -n "$(ls "$runs/$r"/checkpoint-*.safetensors 2> /dev/null)" ]; then
        resume="--resume"
        args=$(sed -E 's/--start-from [^ ]+//' <<< "$args")  # the run began from it; it now goes on from its own
    fi
    # shellcheck disable=SC2086
    timeout --signal=INT "$((deadline - $(date +%s)))" "$attend" train $args --device cuda \
        --threads "${GPU_TRAIN_THREADS:-4}" --out "$runs/$r" $resume >> "$runs/$r.log" 2>&1 &
    pid_of[$r]=$!
}
# Epochs a run can finish by the deadline, from its step rate since it started (validation pauses included) and the
# time it took to prepare its data (which a resumed run spends again); empty when it finishes as it is.
fitted_epochs() {
    local r=$1 now spe total prep
    now=$(date +%s)
    spe=$(grep -oE '^epoch [0-9]+/[0-9]+ \[ *[0-9]+/[0-9]+\]' "$runs/$r.log" | tail -1 | sed -E 's/.*\/([0-9]+)\]$/\1/')
    total=$(grep -oE '^epoch [0-9]+/[0-9]+' "$runs/$r.log" | tail -1 | cut -d/ -f2)
    prep=$(grep -oE 'prepared in [0-9]+ ms' "$runs/$r.log" | tail -1 | grep -oE '[0-9]+')
    [ -n "$spe" ] && [ -n "$total" ] && [ -n "$prep" ] || return 0
    awk -v spe="$spe" -v total="$total" -v left="$((deadline - now - 20))" -v prep="$prep" '
        /"event":"step"/ {
            match($0, /"elapsed_s":[0-9.e+-]+/); t = substr($0, RSTART + 12, RLENGTH - 12) + 0
            match($0, /"step":[0-9]+/); s = substr($0, RSTART + 7, RLENGTH - 7) + 0
            if (n++ == 0) { s1 = s; t1 = t } s2 = s; t2 = t
        }
        END {
            if (n < 3 || t2 <= t1) exit
            rate = (s2 - s1) / (t2 - t1)
            e = int((s2 + 0.92 * rate * (left - prep / 1000)) / spe)
            if (e < total && e > int(s2 / spe) + 1) print e
        }' "$runs/$r/train.jsonl"
}
for r in "$@"; do launch "$r"; done
if [ -n "${GPU_TRAIN_FIT:-}" ]; then
    sleep "$GPU_TRAIN_FIT"
    for r in "$@"; do
        kill -0 "${pid_of[$r]}" 2> /dev/null || continue
        e=$(fitted_epochs "$r")
        [ -n "$e" ] || continue
        echo "gpu-train: $r would not finish in time: $e epochs, the last $(((e + 2) / 4)) cooling down" |
            tee -a "$runs/$r.log"
        kill -INT "${pid_of[$r]}"
        wait "${pid_of[$r]}" || true
        launch "$r" "--epochs $e --cooldown-epochs $(((e + 2) / 4))"
    done
fi
pids=("${pid_of[@]}")
for p in "${pids[@]}"; do wait "$p" || true; done  # an interrupted run has written its checkpoint
for r in "$@"; do
    # dd*: the 80-epoch mean is kept before the run goes on to 120; once both exist, their mean is the model.
    if [[ $r =~ ^dd ]] && grep -q "^averaged the last" "$runs/$r.log"; then
        if [ ! -f "$runs/$r/averaged-e80.safetensors" ]; then
            cp "$runs/$r/averaged.safetensors" "$runs/$r/averaged-e80.safetensors"
        else
            lp=2.6  # the shipped models' own: en→de 2.6, fr→en 1.2
            [[ $r =~ fren ]] && lp=1.2
            "$attend" export "$runs/$r/averaged-e80.safetensors" "$runs/$r/averaged.safetensors" --dtype i8 \
                --length-penalty "$lp" -o "$runs/$r/soup.safetensors"
        fi
    fi
done
for r in "$@"; do
    echo "== $r: $(tail -1 "$runs/$r.log")"
    if [[ $r =~ ^(everyday|tatoeba)- ]]; then
        "$attend" export "$runs/$r" --average 5 --dtype i8 -o "$runs/$r.i8.safetensors" | tail -1
        continue
    elif [[ $r =~ ^transformer-base ]]; then
        "$attend" export "$runs/$r" --average 5 --dtype f32 -o "$runs/$r/last5.safetensors" > /dev/null
        "$attend" eval -m "$runs/$r/last5.safetensors" --split test_2016_flickr --threads 16 2>&1 |
            grep -E "BLEU =|translated in"
        continue
    fi
    for m in averaged best soup; do
        [ -f "$runs/$r/$m.safetensors" ] || continue
        echo "-- $m"
        "$attend" eval -m "$runs/$r/$m.safetensors" --split val,test_2016_flickr --threads 16 2>&1 |
            grep -E "BLEU =|translated in"
    done
done

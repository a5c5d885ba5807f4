#!/usr/bin/python3
"""How well a model's confidence threshold (attend.decoding min_confidence, the 2nd percentile of its translations'
confidence on val) tells in-domain text from text unlike its training captions: the share of test2016 translations
flagged (false alarms), the share of Tatoeba sentences flagged (short everyday sentences: out of domain), and
chrF2 of the flagged test2016 translations against the rest.

  python3 bench/confidence.py --model web/models/multi30k-en-fr-cased.safetensors --data ../shared/data
"""
import argparse
import gzip
import json
import os
import random
import subprocess
import tempfile


def translate(attend, model, lines, threads):
    out = subprocess.run([attend, "translate", "-m", model, "--json", "--threads", str(threads), "--progress", "off"],
                         input="\n".join(lines) + "\n", capture_output=True, text=True, check=False).stdout
    return [json.loads(l) for l in out.splitlines()]


def chrf(attend, hyps, refs):
    with tempfile.TemporaryDirectory() as d:
        h, r = os.path.join(d, "h"), os.path.join(d, "r")
        open(h, "w").write("\n".join(hyps) + "\n")
        open(r, "w").write("\n".join(refs) + "\n")
        out = subprocess.run([attend, "bleu", "--ref", r, "--hyp", h, "--tokenize", "13a", "--metric", "all"],
                             capture_output=True, text=True, check=True).stdout
    return float(out.split("chrF2 = ")[1].split()[0])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--data", default="../shared/data")
    ap.add_argument("--attend", default="build/bin/attend")
    ap.add_argument("--tatoeba", type=int, default=300, help="random Tatoeba sentences of 12 characters or more")
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args()
    info = json.loads(subprocess.run([a.attend, "info", "--json", a.model], capture_output=True, text=True,
                                     check=True).stdout)
    src, tgt = info["source_language"], info["target_language"]
    threshold = info["min_confidence"]

    def read(split, lang):
        with gzip.open(os.path.join(a.data, "multi30k", f"{split}.{lang}.gz"), "rt", encoding="utf-8") as f:
            return f.read().splitlines()

    test = translate(a.attend, a.model, read("test_2016_flickr", src), a.threads)
    refs = read("test_2016_flickr", tgt)
    flagged = [i for i, r in enumerate(test) if r.get("low_confidence")]
    rest = [i for i in range(len(test)) if i not in set(flagged)]
    print(f"{src}-{tgt} min_confidence {threshold:.3f}: test2016 flagged {len(flagged)} of {len(test)} "
          f"({100 * len(flagged) / len(test):.1f}%)", end="")
    if flagged:
        print(f"; chrF2 flagged {chrf(a.attend, [test[i]['text'] for i in flagged], [refs[i] for i in flagged]):.1f}"
              f" vs the rest {chrf(a.attend, [test[i]['text'] for i in rest], [refs[i] for i in rest]):.1f}", end="")
    print()
    column = {"en": 0, "fr": 1}.get(src)
    if column is None:
        print("  no Tatoeba sentences in", src)
        return
    with open(os.path.join(a.data, "tatoeba", "eng-fra-5k.tsv"), encoding="utf-8") as f:
        sentences = sorted({l.split("\t")[column] for l in f if len(l.split("\t")[column]) >= 12})
    random.Random(1).shuffle(sentences)
    ood = translate(a.attend, a.model, sentences[: a.tatoeba], a.threads)
    n = sum(1 for r in ood if r.get("low_confidence"))
    print(f"  Tatoeba ({src}) flagged {n} of {len(ood)} ({100 * n / len(ood):.1f}%)")


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""Long sentences from short ones: test2016 captions joined in threes with ", and" (", und", ", et"), the
references joined the same way, to measure how a caption model translates sentences longer than any it was trained
on, with and without clause splitting.

  python3 bench/joined_captions.py --data ../shared/data --source en --target de --out /tmp/joined
  attend translate -m web/models/multi30k-en-de-cased.safetensors -b 5 --clause-split-words 0 \
      < /tmp/joined/joined.en > /tmp/joined/whole.de
  attend translate -m web/models/multi30k-en-de-cased.safetensors -b 5 < /tmp/joined/joined.en > /tmp/joined/clauses.de
  attend bleu --ref /tmp/joined/joined.de --hyp /tmp/joined/clauses.de --tokenize 13a --metric all

A translation clause by clause writes sentences ("X. Y. Z.") where the references have one, so these scores
understate it a little.
"""
import argparse
import gzip
import os

CONJUNCTION = {"en": "and", "de": "und", "fr": "et"}


def join(lines, lang):
    def lower_first(s):
        # "I" stays; German nouns are rare at a caption's start ("Ein", "Zwei", ...)
        return s if s.startswith("I ") else s[:1].lower() + s[1:]

    parts = [s.rstrip().rstrip(".").rstrip() for s in lines[:-1]] + [lines[-1].rstrip()]
    return f", {CONJUNCTION[lang]} ".join([parts[0]] + [lower_first(p) for p in parts[1:]])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default="../shared/data")
    ap.add_argument("--source", default="en", choices=CONJUNCTION)
    ap.add_argument("--target", default="de", choices=CONJUNCTION)
    ap.add_argument("--out", required=True)
    ap.add_argument("--group", type=int, default=3, help="captions per sentence")
    ap.add_argument("--captions", type=int, default=600, help="the first N test2016 captions")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    for lang in (a.source, a.target):
        path = os.path.join(a.data, "multi30k", f"test_2016_flickr.{lang}.gz")
        with gzip.open(path, "rt", encoding="utf-8") as f:
            lines = f.read().splitlines()[: a.captions]
        groups = [lines[i : i + a.group] for i in range(0, len(lines) - a.group + 1, a.group)]
        with open(os.path.join(a.out, f"joined.{lang}"), "w", encoding="utf-8") as f:
            f.writelines(join(g, lang) + "\n" for g in groups)


if __name__ == "__main__":
    main()

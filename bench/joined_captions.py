#!/usr/bin/python3
"""Long sentences from short ones: test2016 captions joined in threes with ", and" (", und", ", et"), the
references joined the same way, to measure how a caption model translates sentences longer than any it was trained
on, with and without clause splitting.

  python3 bench/joined_captions.py --data ../shared/data --source en --target de --out /tmp/joined
  attend translate -m web/models/multi30k-en-de-cased.safetensors -b 5 --clause-split-words 0 \
      < /tmp/joined/joined.en > /tmp/joined/whole.de
  attend translate -m web/models/multi30k-en-de-cased.safetensors -b 5 < /tmp/joined/joined.en > /tmp/joined/clauses.de
  attend bleu --ref /tmp/joined/joined.de --hyp /tmp/joined/clauses.de --tokenize 13a --metric all

The translator joins the clauses' translations the same way (translate/clause_join.h), a form these references
share by construction: part of the gain of clause by clause over whole is that form, the rest is the content that
the whole sentence drops and invents (docs/decoding.md gives both: with the clauses left as sentences, "X. Y. Z.", the
gain is that part alone).

Inside the joined references a caption's first word keeps its capital where the language writes it so: English
"I"; in German, a word that the training captions write with a capital more often than without when it is not their
first (nouns, names); anything else starts in lower case.
"""
import argparse
import collections
import gzip
import os

CONJUNCTION = {"en": "and", "de": "und", "fr": "et"}


def capitalized_inside(data, lang):
    """Words that the training captions write with a capital more often than without, after their first word."""
    if lang != "de":
        return set()
    counts = collections.Counter()
    with gzip.open(os.path.join(data, "multi30k", f"train.{lang}.gz"), "rt", encoding="utf-8") as f:
        for line in f:
            counts.update(w.strip(".,;:!?\"()") for w in line.split()[1:])
    return {w for w in counts if w[:1].isupper() and counts[w] > counts[w[:1].lower() + w[1:]]}


def join(lines, lang, keep):
    def lower_first(s):
        first = s.split(" ", 1)[0]
        return s if first == "I" or first in keep else s[:1].lower() + s[1:]

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
        keep = capitalized_inside(a.data, lang)
        path = os.path.join(a.data, "multi30k", f"test_2016_flickr.{lang}.gz")
        with gzip.open(path, "rt", encoding="utf-8") as f:
            lines = f.read().splitlines()[: a.captions]
        groups = [lines[i : i + a.group] for i in range(0, len(lines) - a.group + 1, a.group)]
        with open(os.path.join(a.out, f"joined.{lang}"), "w", encoding="utf-8") as f:
            f.writelines(join(g, lang, keep) + "\n" for g in groups)


if __name__ == "__main__":
    main()

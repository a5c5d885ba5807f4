#!/usr/bin/python3
"""Where markup lands in a translation: captions with one noun ("<b>dog</b>") or one colour and its noun
("<b>red car</b>") in bold, translated with the bold put back by the cross attention's alignment and by the share of
the words (`--no-align-markup`), scored against the words of the plain translation that translate them (a small
lexicon of caption nouns and colours).

  python3 bench/markup_placement.py --model web/models/multi30k-en-fr-cased.safetensors --split test_2016_flickr

With --choose-layers (on val): the attention way again for each run of decoder layers whose cross attention is
averaged (the model exported with each `--alignment-layers FIRST,LAST`), ranked by exact placements, and the export
option of the best.

A case counts where the plain translation has exactly one word of the lexicon's translation for each marked word
(words that start with it: "Hund", "Hunde"; "rouge", "rouges"), so the gold place is known. covered: every such word
is inside the bold; exact: the bold holds those words and no others (German "<b>einem roten Hemd</b>" for "a
<b>red shirt</b>" is covered, not exact).
"""
import argparse
import gzip
import json
import os
import re
import subprocess
import sys
import tempfile

# en, de, fr: a translation is a word that starts with one of the stems (case-insensitive)
NOUNS = [
    ("man", "Mann", "homme"), ("woman", "Frau", "femme"), ("dog", "Hund", "chien"), ("boy", "Junge", "garçon"),
    ("girl", "Mädchen", "fille"), ("child", "Kind", "enfant"), ("water", "Wasser", "eau"),
    ("ball", "Ball", "ballon|balle"), ("street", "Straße", "rue"), ("bike", "Fahrrad|Rad", "vélo"),
    ("car", "Auto|Wagen", "voiture"), ("beach", "Strand", "plage"), ("grass", "Gras|Rasen", "herbe|pelouse"),
    ("hat", "Hut|Mütze", "chapeau|casquette"), ("snow", "Schnee", "neige"), ("table", "Tisch", "table"),
    ("building", "Gebäude", "bâtiment|immeuble"), ("guitar", "Gitarre", "guitare"), ("horse", "Pferd", "cheval"),
    ("crowd", "Menge|Menschenmenge", "foule"), ("ocean", "Meer|Ozean", "océan|mer"),
]
COLOURS = [
    ("red", "rot", "rouge"), ("blue", "blau", "bleu"), ("green", "grün", "vert"), ("white", "weiß", "blanc"),
    ("black", "schwarz", "noir"), ("yellow", "gelb", "jaune"),
]
LANGS = ("en", "de", "fr")
ELISION = re.compile(r"^(l|d|qu|j|c|n|s)['’]", re.I)


def bare(word):
    return ELISION.sub("", re.sub(r"^\W+|\W+$", "", word)).lower()


def says(word, stems, lang):
    w = bare(word)
    if lang == "en":  # exact or plural: "man" must not match "many"
        return any(w in (s.lower(), s.lower() + "s", s.lower() + "es") for s in stems)
    return any(w.startswith(s.lower()) for s in stems)


def stems_of(entry, lang):
    return entry[LANGS.index(lang)].split("|")


def mark(words, lo, hi):
    """words lo..hi in bold, their punctuation outside it: "(<b>red car</b>)."."""
    ws = list(words)
    first = re.match(r"^(\W*)(.+)$", ws[lo])
    if not first:
        return None
    ws[lo] = first.group(1) + "<b>" + first.group(2)
    last = re.match(r"^(.*?\w)(\W*)$", ws[hi])
    if not last:
        return None
    ws[hi] = last.group(1) + "</b>" + last.group(2)
    return " ".join(ws)


def cases(lines, src, tgt):
    """(marked source, [target stems of each marked word]) for lines with exactly one lexicon noun."""
    out = []
    for line in lines:
        words = line.split(" ")
        hits = [(i, e) for i, w in enumerate(words) for e in NOUNS if says(w, stems_of(e, src), src)
                and (src != "en" or bare(w) == e[0])]
        if len(hits) != 1:
            continue
        i, noun = hits[0]
        colour = None
        for e in COLOURS:
            # the colour next to its noun: before it in English and German, after it in French
            j = i + 1 if src == "fr" else i - 1
            if 0 <= j < len(words) and says(words[j], stems_of(e, src), src):
                colour = (j, e)
        lo, hi, marked = i, i, [noun]
        if colour:
            lo, hi = min(i, colour[0]), max(i, colour[0])
            marked.append(colour[1])
        source = mark(words, lo, hi)
        if source:
            out.append((source, [stems_of(e, tgt) for e in marked], "phrase" if colour else "word"))
    return out


def translate(attend, model, lines, extra):
    r = subprocess.run([attend, "translate", "-m", model] + extra, input="\n".join(lines) + "\n",
                       capture_output=True, text=True, check=True)
    out = r.stdout.split("\n")[: len(lines)]
    if len(out) != len(lines):
        sys.exit(f"attend translate gave {len(out)} lines for {len(lines)}")
    return out


def bold_words(marked):
    """Indices of the words that have letters inside the bold."""
    inside, bold = set(), False
    for k, word in enumerate(marked.split(" ")):
        for piece in re.split(r"(</?b>)", word):
            if piece in ("<b>", "</b>"):
                bold = piece == "<b>"
            elif bold and re.search(r"\w", piece):
                inside.add(k)
    return inside


def score(plain, marked, stems_list, lang):
    """None where the gold place is unknown; else (covered, exact)."""
    words = plain.split(" ")
    gold = set()
    for stems in stems_list:
        at = [k for k, w in enumerate(words) if says(w, stems, lang)]
        if len(at) != 1:
            return None
        gold.add(at[0])
    if re.sub(r"</?b>", "", marked) != plain or marked.count("<b>") != 1 or marked.count("</b>") != 1:
        return None
    inside = bold_words(marked)
    return gold <= inside, gold == inside


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--attend", default="build/bin/attend")
    ap.add_argument("--model", required=True)
    ap.add_argument("--data", default="../shared/data")
    ap.add_argument("--split", default="val", help="val, test_2016_flickr, ...")
    ap.add_argument("--beam", default="5")
    ap.add_argument("--choose-layers", action="store_true",
                    help="rank the runs of cross attention layers that alignment may average (choose on val)")
    a = ap.parse_args()
    name = os.path.basename(a.model)
    m = re.search(r"-(en|de|fr)-(en|de|fr)", name)
    if not m:
        sys.exit(f"cannot tell the languages from the model's name {name}")
    src, tgt = m.group(1), m.group(2)
    with gzip.open(os.path.join(a.data, "multi30k", f"{a.split}.{src}.gz"), "rt", encoding="utf-8") as f:
        lines = f.read().splitlines()
    cs = cases(lines, src, tgt)
    sources = [c[0] for c in cs]
    common = ["-b", a.beam, "--clause-split-words", "0"]
    plain = translate(a.attend, a.model, [re.sub(r"</?b>", "", s) for s in sources], common)
    if a.choose_layers:
        choose_layers(a, sources, plain, cs, common, tgt)
        return
    results = {}
    for label, extra in (("share", ["--no-align-markup"]), ("attention", [])):
        out = translate(a.attend, a.model, sources, common + extra)
        results[label] = [score(p, o, c[1], tgt) for p, o, c in zip(plain, out, cs)]
    print(f"{name}, {a.split}: {len(cs)} marked captions")
    for kind in ("word", "phrase"):
        known = [k for k, c in enumerate(cs) if c[2] == kind and all(results[l][k] for l in results)]
        if not known:
            continue
        figures = []
        for label in results:
            covered = sum(results[label][k][0] for k in known)
            exact = sum(results[label][k][1] for k in known)
            figures.append(f"{label}: covered {100 * covered / len(known):.1f}%, exact {100 * exact / len(known):.1f}%")
        print(f"  {kind} ({len(known)} cases with a known place): " + "; ".join(figures))


def choose_layers(a, sources, plain, cs, common, tgt):
    info = json.loads(subprocess.run([a.attend, "info", "--json", a.model], capture_output=True, text=True,
                                     check=True).stdout)
    layers = info["config"].get("decoder_layers", 1)  # a Bahdanau model has one attention
    runs = [(0, layers - 1)] + [(f, l) for f in range(layers) for l in range(f, layers) if (f, l) != (0, layers - 1)]
    known = [k for k, (p, c) in enumerate(zip(plain, cs))
             if all(len([w for w in p.split(" ") if says(w, stems, tgt)]) == 1 for stems in c[1])]
    print(f"{os.path.basename(a.model)}, {a.split}: {len(known)} marked captions with a known place")
    ranked = []
    with tempfile.TemporaryDirectory() as tmp:
        for first, last in runs:
            model = os.path.join(tmp, "m.safetensors")
            subprocess.run([a.attend, "export", a.model, "-o", model, "--dtype", info["dtype"].lower(),
                            "--alignment-layers", f"{first},{last}"], capture_output=True, check=True)
            out = translate(a.attend, model, [sources[k] for k in known], common)
            scores = [score(plain[k], o, cs[k][1], tgt) or (False, False) for k, o in zip(known, out)]
            exact, covered = sum(s[1] for s in scores), sum(s[0] for s in scores)
            ranked.append((exact, covered, -runs.index((first, last)), first, last))
            print(f"  layers {first}-{last}: exact {exact}/{len(known)} ({100 * exact / len(known):.1f}%), "
                  f"covered {covered}", flush=True)
    best = max(ranked)
    print("best (exact, then covered; ties to every layer, then the earlier run): "
          f"--alignment-layers {best[3]},{best[4]}")


if __name__ == "__main__":
    main()

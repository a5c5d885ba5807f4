#!/usr/bin/python3
"""Which names a model writes back best, to stand for the names of a text while it is translated (copy-through's
name placeholders, attend.decoding name_placeholders): each of 22 people and places that the captions hold ("Obama",
"Elmo", "Seattle"; names of things, "Jenga", "Walmart", take articles) is put in template sentences where a person's
name would stand, translated without copy-through, and ranked by how many translations hold it exactly once and read
as most candidates' translations of the sentence do (each name written as P: "Obama kochen das Abendessen" where the
others are "P kocht das Abendessen" reads otherwise), then by how many hold it once, then by the model's mean
confidence in them. The first placeholder is chosen on sentences with one name; the next three on
sentences with two, beside the first. Prints the ranking and the export option that stores the choice.

  python3 bench/name_placeholders.py --model web/models/multi30k-fr-en-cased.safetensors
"""
import argparse
import collections
import json
import re
import subprocess

ONE = {
    "en": ["P is playing guitar on the street.", "A man named P is reading a book.", "P rides a bike down the hill.",
           "P throws a ball to his dog.", "P gives her brother a hug.", "The dog is running towards P.",
           "A woman is dancing with P.", "P and his friend are playing soccer.", "P is sitting on a bench in the park.",
           "Children are listening to P.", "A girl and P are walking on the beach.",
           "P, a young boy, jumps into the pool.", "P is cooking dinner.", "P is eating an apple."],
    "fr": ["P joue de la guitare dans la rue.", "Un homme nommé P lit un livre.", "P fait du vélo sur la colline.",
           "P lance une balle à son chien.", "Le chien court vers P.", "Une femme danse avec P.",
           "P et son ami jouent au football.", "P est assis sur un banc dans le parc.", "Les enfants écoutent P.",
           "P fait un câlin à son frère.", "Une fille et P marchent sur la plage.",
           "P, un jeune garçon, saute dans la piscine.", "P prépare le dîner.", "P mange une pomme."],
    "de": ["P spielt auf der Straße Gitarre.", "Ein Mann namens P liest ein Buch.",
           "P fährt mit dem Fahrrad den Hügel hinunter.", "P wirft seinem Hund einen Ball zu.", "Der Hund rennt auf P zu.",
           "Eine Frau tanzt mit P.", "P und sein Freund spielen Fußball.", "P sitzt auf einer Bank im Park.",
           "Kinder hören P zu.", "P umarmt seinen Bruder.", "Ein Mädchen und P gehen am Strand spazieren.",
           "P, ein kleiner Junge, springt in den Pool.", "P kocht das Abendessen.", "P isst einen Apfel."],
}
# What copy-through's restore drops before a name placeholder where the source had no article (copy_through.cpp).
ARTICLES = "a an the ein eine einen einem einer eines der die das den dem des un une le la les du".split()
# People and places of the Multi30K captions.
CANDIDATES = ("Obama Elmo Mickey Batman Superman Santa Bob John Seattle Miami Boston Washington London Texas Oklahoma "
              "Vegas Europe America China India Japan Asia").split()
TWO = {
    "en": ["P and Q are walking in the park.", "P is dancing with Q.", "A man named P talks to Q.", "P gives Q a hug.",
           "P and Q play soccer on the beach.", "The dog runs from P to Q."],
    "fr": ["P et Q marchent dans le parc.", "P danse avec Q.", "Un homme nommé P parle à Q.", "P fait un câlin à Q.",
           "P et Q jouent au football sur la plage.", "Le chien court de P vers Q."],
    "de": ["P und Q gehen im Park spazieren.", "P tanzt mit Q.", "Ein Mann namens P spricht mit Q.", "P umarmt Q.",
           "P und Q spielen am Strand Fußball.", "Der Hund rennt von P zu Q."],
}


def translate(attend, model, lines, threads):
    out = subprocess.run([attend, "translate", "-m", model, "--json", "--no-copy-through", "--threads", str(threads),
                          "--progress", "off"], input="\n".join(lines) + "\n", capture_output=True, text=True,
                         check=True).stdout
    return [json.loads(l) for l in out.splitlines()]


def fill(template, p, q=""):
    return template.replace("P", p, 1).replace("Q", q, 1)


def once(text, name):
    """The name is in the text exactly once, as a word of its own ("Obama", not "Obamas" or "Obama Obama")."""
    return text.count(name) == 1 and re.search(r"(?<!\w)" + re.escape(name) + r"(?!\w)", text) is not None


def usual(texts):
    """The translation of a sentence that most candidates share, or None where no two do."""
    counts = collections.Counter(texts)
    text, n = counts.most_common(1)[0]
    return text if n >= 2 else None


def rank(attend, model, templates, candidates, first, threads):
    """(written back once and as usual, written back once, mean confidence, name) for each candidate, best first."""
    lines = [fill(t, first, c) if first else fill(t, c) for c in candidates for t in templates]
    out = translate(attend, model, lines, threads)
    n = len(templates)
    # Each translation with its names written as P and Q, and without what copy-through's restore drops before a name
    # (an article, "l'"; "d'" becomes "de"), to compare across candidates.
    def generic(k, t):
        text = out[k * n + t]["text"]
        text = text.replace(first, "P").replace(candidates[k], "Q") if first else text.replace(candidates[k], "P")
        text = re.sub(r"\b(?:" + "|".join(ARTICLES) + r") (?=[PQ]\b)", "", text, flags=re.IGNORECASE)
        text = re.sub(r"\b[lL]'(?=[PQ]\b)", "", text)
        return re.sub(r"\b([dD])'(?=[PQ]\b)", r"\1e ", text)
    common = [usual([generic(k, t) for k in range(len(candidates))]) for t in range(n)]
    scores = []
    for k, c in enumerate(candidates):
        group = out[k * n:(k + 1) * n]
        held = [once(r["text"], c) and (not first or once(r["text"], first)) for r in group]
        as_usual = sum(1 for t in range(n) if held[t] and generic(k, t) == common[t])
        scores.append((as_usual, sum(held), sum(r["confidence"] for r in group) / n, c))
    return sorted(scores, reverse=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--attend", default="build/bin/attend")
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args()
    info = json.loads(subprocess.run([a.attend, "info", "--json", a.model], capture_output=True, text=True,
                                     check=True).stdout)
    src, tgt = info["source_language"], info["target_language"]
    one = rank(a.attend, a.model, ONE[src], CANDIDATES, "", a.threads)
    print(f"{src}-{tgt}: {len(CANDIDATES)} names of people and places; of {len(ONE[src])} sentences, written back once "
          "as most candidates' translations read, written back once, mean confidence:")
    for usual_, ok, conf, c in one[:10]:
        print(f"  {c:12s} {usual_:2d} {ok:2d}  {conf:.3f}")
    first = one[0][3]
    two = rank(a.attend, a.model, TWO[src], [c for c in CANDIDATES if c != first], first, a.threads)
    print(f"beside {first}, of {len(TWO[src])} sentences, both written back once as usual, both once, mean confidence:")
    for usual_, ok, conf, c in two[:10]:
        print(f"  {c:12s} {usual_:2d} {ok:2d}  {conf:.3f}")
    print("--name-placeholders " + ",".join([first] + [c for _, _, _, c in two[:3]]))

if __name__ == "__main__":
    main()

"""The pyahocorasick side of the banned-word benchmark (docs/banned-words.md
"Performance").

Reads `text.txt` and `words.txt` written by the Rust bench
(`BANNED_WORDS_BENCH_DUMP=<dir> cargo bench -p core-service --bench banned_words`)
and times `Automaton.iter` (every overlapping match) over the plain text:
no normalization and no offset mapping, the lenient comparison for Python.
Throughput is UTF-8 bytes of the text per second, as in the Rust bench.

Run with a virtual environment outside the repository:

    python3 -m venv /tmp/acbench/venv && /tmp/acbench/venv/bin/pip install pyahocorasick
    /tmp/acbench/venv/bin/python core-service/benches/banned_words_pyahocorasick.py <dir>
"""

import statistics
import sys
import time
from pathlib import Path

import ahocorasick


def main() -> None:
    directory = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/acbench")
    text = (directory / "text.txt").read_text(encoding="utf-8")
    words = [w for w in (directory / "words.txt").read_text(encoding="utf-8").split("\n") if w]
    automaton = ahocorasick.Automaton()
    for index, word in enumerate(words):
        automaton.add_word(word, (index, word))
    automaton.make_automaton()

    size = len(text.encode("utf-8"))
    runs = []
    hits = 0
    for _ in range(50):
        start = time.perf_counter()
        hits = sum(1 for _ in automaton.iter(text))
        runs.append(time.perf_counter() - start)
    median = statistics.median(runs)
    print(f"text: {size} bytes, {len(text)} chars; {len(words)} words; {hits} matches (plain text)")
    best = min(runs)
    print(
        f"pyahocorasick iter: best {best * 1e3:.2f} ms ({size / best / 1e6:.1f} MB/s), "
        f"median {median * 1e3:.2f} ms ({size / median / 1e6:.1f} MB/s)"
    )


if __name__ == "__main__":
    main()

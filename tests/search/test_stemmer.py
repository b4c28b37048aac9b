"""The stemmer in use is PyStemmer (C, through snowballstemmer), and it stems exactly as the pure
Python Snowball English stemmer does: on the model's whole WordPiece vocabulary and on any word."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st
from snowballstemmer.english_stemmer import EnglishStemmer

from service.search.semantic.table import TOKENIZER_FILE
from service.text import analysis
from service.text.analysis import stem

PURE = EnglishStemmer()


def test_the_c_stemmer_is_in_use() -> None:
    assert type(analysis._stemmer).__module__ == "Stemmer"


def test_it_stems_the_vocabulary_as_the_pure_stemmer_does() -> None:
    words = [w.lstrip("#") for w in json.loads(TOKENIZER_FILE.read_text())["model"]["vocab"]]
    assert len(words) > 30_000
    differ = [w for w in words if stem(w) != PURE.stemWord(w)]
    assert not differ, differ[:20]
    assert stem("lullabies") == "lullabi" == PURE.stemWord("lullabies")  # the check compares real stems


@settings(max_examples=2000, deadline=None)
@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz'éøy", min_size=1, max_size=30))
def test_it_stems_any_word_as_the_pure_stemmer_does(word: str) -> None:
    assert stem(word) == PURE.stemWord(word)

"""The distilled table embeds a text as the mean of its tokens' rows (checked against a plain
per-text reference, across chunk boundaries), and tells words the model knows from strings of
sub-word pieces: the rule that keeps "zqk7mvbxt" and "radiohead" from meaning anything."""

from __future__ import annotations

import numpy as np

from service.search.semantic.model import shared_model, word_forms
from service.search.semantic.table import CHUNK, StaticTable

TEXTS = ["Baby Lullabies . music box melodies", "", "zqk7mvbxt", "Kraftwerk Autobahn", "[UNK]", "é"]


def test_a_text_is_the_mean_of_its_tokens_rows_in_any_chunk() -> None:
    table = StaticTable()
    texts = TEXTS * (CHUNK // 2)  # more than one chunk, a chunk boundary inside a repeat
    found = table.embed(texts)
    rows = table._rows.astype(np.float32) * table._scales  # the plain reference: every row scaled
    for text, got in zip(texts, found, strict=True):
        ids = [i for i in table._tokenizer.encode(text, add_special_tokens=False).ids if i != table._unknown]
        expected = rows[ids].mean(axis=0) if ids else np.zeros(table.dimensions, dtype=np.float32)
        np.testing.assert_allclose(got, expected, atol=1e-5)
    assert not found[1].any() and found[0].any()
    assert table.embed([]).shape == (0, table.dimensions)


def test_known_words_are_one_token_or_the_plural_of_one() -> None:
    model = shared_model()
    for word in ("guitar", "lullabies", "songs", "saxophone", "metal"):
        assert model.knows(word), word
    for word in ("zqk7mvbxt", "zqk7rtpwd", "radiohead", "portishead", "blorfendish"):
        assert not model.knows(word), word
    assert word_forms("lullabies") == ["lullabies", "lullaby", "lullabi", "lullabie"]
    assert word_forms("bass") == ["bass"]

"""The analyzer: folding, stop words, stemming, typo budget, query parsing; the index's upkeep."""

from __future__ import annotations

from service.search.fields import Entry, Field
from service.search.index import UserIndex
from service.search.ranking import rank, snippet
from service.text.analysis import fold, parse_query, terms, typo_budget


def test_case_and_diacritics_fold() -> None:
    assert terms("Mötley Crüe") == terms("motley crue") == ["motley", "crue"]
    assert terms("BEYONCÉ") == terms("beyonce")
    assert terms("Røyksopp") == terms("royksopp")
    assert fold("Sigur Rós") == "sigur ros"


def test_stemming_and_stop_words() -> None:
    assert terms("breathers") == terms("breather")
    assert terms("running runs") == ["run", "run"]
    assert terms("the zombies") == terms("zombies")
    assert terms("of the and a") == []


def test_typo_budget_grows_with_word_length() -> None:
    assert [typo_budget(w) for w in ("jazz", "metal", "nightws", "nightwsh")] == [0, 1, 1, 2]


def test_query_parsing_keeps_phrases_and_unique_terms() -> None:
    parsed = parse_query('"Late Night Drive" drive synths')
    assert parsed.phrases == [["late", "night", "drive"]]
    assert parsed.raw_phrases == ["late night drive"]
    assert parsed.terms == ["late", "night", "drive", "synth"]
    assert parse_query("the who").terms == ["the", "who"]  # stop words only: kept
    assert parse_query("   ").empty


def _entry(kind: str, id_: str, *fields: tuple[str, float, str]) -> Entry:
    return Entry(kind, id_, [Field(n, w, t) for n, w, t in fields], {})


def test_field_weights_rank_name_over_tags_over_description_over_notes() -> None:
    index = UserIndex()
    index.put(_entry("playlist", "notes", ("name", 10, "One"), ("seed_context", 2, "nightwish")))
    index.put(_entry("playlist", "description", ("name", 10, "Two"), ("description", 4, "nightwish")))
    index.put(_entry("playlist", "tags", ("name", 10, "Three"), ("intent_tags", 6, "nightwish")))
    index.put(_entry("playlist", "name", ("name", 10, "Nightwish")))
    ranked = rank(index, parse_query("nightwish"), 10)
    assert [e.id for _, e, _ in ranked] == ["name", "tags", "description", "notes"]
    assert all(0 < score <= 1 for score, _, _ in ranked)


def test_typos_match_stored_words_and_rank_below_exact_words() -> None:
    index = UserIndex()
    index.put(_entry("playlist", "a", ("name", 10, "Nightwish")))
    index.put(_entry("playlist", "b", ("name", 10, "Meditation drones")))
    assert [e.id for _, e, _ in rank(index, parse_query("nightwsh"), 5)] == ["a"]
    assert [e.id for _, e, _ in rank(index, parse_query("meditaton"), 5)] == ["b"]
    assert rank(index, parse_query("jaz"), 5) == []  # short words get no typo budget
    exact = rank(index, parse_query("nightwish"), 5)[0][0]
    assert rank(index, parse_query("nightwsh"), 5)[0][0] < exact


def test_phrases_are_required_in_order() -> None:
    index = UserIndex()
    index.put(_entry("playlist", "a", ("description", 4, "a late night drive")))
    index.put(_entry("playlist", "b", ("description", 4, "drive late at night")))
    assert [e.id for _, e, _ in rank(index, parse_query('"late night drive"'), 5)] == ["a"]


def test_removing_and_replacing_entries_leaves_no_trace() -> None:
    index = UserIndex()
    index.put(_entry("playlist", "a", ("name", 10, "Sabaton anthems")))
    index.put(_entry("playlist", "a", ("name", 10, "Quiet piano")))
    assert rank(index, parse_query("sabaton"), 5) == []
    assert rank(index, parse_query("sabatn"), 5) == []
    index.remove(("playlist", "a"))
    assert index.postings == {} and rank(index, parse_query("piano"), 5) == []


def test_snippet_is_cut_around_the_matched_words() -> None:
    long_text = "intro " * 60 + "the Mötley Crüe encore" + " outro" * 60
    entry = _entry("preference_event", "e", ("raw_text", 4, long_text), ("type", 1, "like"))
    text, matched = snippet(entry, set(terms("motley crue")))
    assert "Mötley Crüe" in text and len(text) <= 160
    assert matched == ["Mötley", "Crüe"]

"""§4.2 and §7: the content-derived ids, value for value."""

from __future__ import annotations

import pytest

from zenmux_emulator.faces.objectiveai import ids

from .examples import llm

LLMS = [
    (llm("openai/gpt-5-nano", "generate", 1), "61jFz6OhuRTAKokNtby9Qn"),
    (llm("openai/gpt-5-mini", "generate", 1), "5Fr43anduAkLuCN7PL9BAK"),
    (llm("google/gemini-2.5-flash", "generate", 1), "7W051ct7yeEWFZczC98xKl"),
    (llm("openai/gpt-4o-mini", "select_non_thinking_logprobs", 2, select_top_logprobs=5), "3tMKtqapoecUU1WfhVHYlW"),
    (llm("anthropic/claude-haiku-4.5", "select_thinking", 1), "6HCOIWflpRD5D0L761tthU"),
    (llm("openai/gpt-4o-mini", "select_non_thinking", 1), "1LSUsYUODhIPTT1uoLliQ7"),
    (llm("google/gemini-2.5-flash-lite", "select_non_thinking_logprobs", 3), "5IBNbzlPL4mTLkNsugLht2"),
]


@pytest.mark.parametrize(("spec", "expected"), LLMS)
def test_llm_ids(spec: dict[str, object], expected: str) -> None:
    assert ids.llm_id(spec) == expected


def test_canonical_form_of_an_llm() -> None:
    assert ids.llm_canonical(LLMS[3][0]) == (
        '{"id":"openai/gpt-4o-mini","mode":"select_non_thinking_logprobs",'
        '"select_top_logprobs":5,"weight":{"type":"static","weight":2.0}}'
    )


def test_defaults_are_left_out_and_the_rest_is_normalised() -> None:
    spec = llm(
        "a/b",
        "select_thinking_logprobs",
        0.5,
        select_top_logprobs=20,
        temperature=1,
        top_p=0.9,
        stop=["b", "a"],
        provider={"allow_fallbacks": True, "only": ["z", "y"]},
        verbosity="medium",
        reasoning={"effort": "low", "enabled": True},
        models=[],
        logit_bias={},
    )
    assert ids.llm_canonical(spec) == (
        '{"id":"a/b","mode":"select_thinking_logprobs","stop":["a","b"],"top_p":0.9,'
        '"provider":{"only":["y","z"]},"reasoning":{"effort":"low"},'
        '"weight":{"type":"static","weight":0.5}}'
    )
    assert ids.llm_canonical(llm("a/b", "generate", 1, stop=["x"]))[:37] == '{"id":"a/b","mode":"generate","stop":'


@pytest.mark.parametrize(
    ("names", "expected"),
    [
        ([s for s, _ in LLMS[:3]], "2FgLFqAf8M6MTa6MtGLLwM"),
        ([s for s, _ in LLMS[:5]], "2VhZaOqZT4VNLyPIASMki7"),
        ([s for s, _ in LLMS[5:]], "3yOw7ZxSvwCyH4DSxJOPXZ"),
        ([LLMS[0][0]], "3F2o5YVo5IxSoQP109NScj"),
    ],
)
def test_query_model_ids(names: list[dict[str, object]], expected: str) -> None:
    llm_ids = [ids.llm_id(spec) for spec in names]
    assert ids.query_model_id({"type": "static"}, llm_ids) == expected
    assert ids.query_model_id({"type": "static"}, list(reversed(llm_ids))) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("hello", "5XGRAXGBIBjgLnPVCoBpNo"),
        ("", "4fxWlHIYsfqk6R9EktAtwt"),
        ("Paris", "5NkzPRHh9cbR32r7EbmoEC"),
        ("Paris.", "1P7iXhQbRfMBV63Puy0L9U"),
        ('{"3_rank_1_option":"https://www.italki.com"}', "6t6PEUQEoRXO7bop1tENWx"),
        ('{"3_rank_1_option":"https://preply.com"}', "167XxNxYXUKHFzT0b6iaAN"),
        ('{"approved":true}', "4Zjy6BMklNXwutCtXC5nOT"),
        ('{"approved":false}', "27emL2kxexyY2vYDZIMWPm"),
    ],
)
def test_hashes(text: str, expected: str) -> None:
    assert ids.hash_id(text) == expected
    assert ids.generate_id(text) == expected


def test_base62_padding() -> None:
    assert ids.b62_22(0) == "0" * 22
    assert ids.b62_22(61) == "0" * 21 + "z"
    assert ids.b62_22(62) == "0" * 20 + "10"


def test_model_index_is_the_position_after_sorting() -> None:
    assert ids.model_indices(["61jF", "5Fr4", "7W05"]) == [1, 0, 2]
    assert ids.model_indices(["b", "a", "b"]) == [1, 0, 2]


def test_confidence_transform() -> None:
    schema = {
        "type": "object",
        "properties": {
            "keep": {"type": "array", "items": {"type": "string"}},
            "drop": {"type": "string", "_confidence": False},
            "typo": {"type": "string", "_confidence_": False},
            "ordered": {"type": "array", "_preserveOrder": True},
        },
    }
    value = {"ordered": [2, 1], "keep": ["b", "a"], "drop": "x", "typo": "y"}
    assert ids.canon(value, schema) == {"keep": ["a", "b"], "ordered": [2, 1]}
    assert list(ids.canon(value, schema)) == ["keep", "ordered"]
    assert ids.misspelled_confidence(schema)
    content = '{"ordered":[2,1],"keep":["b","a"],"drop":"x"}'
    assert ids.confidence_id(content, schema) == ids.hash_id('{"keep":["a","b"],"ordered":[2,1]}')
    assert ids.confidence_id(content, None) == ids.generate_id(content)  # text / json_object: no transform
    assert ids.confidence_id("not json", schema) == ids.generate_id("not json")


def test_response_and_metadata_ids() -> None:
    rid = ids.response_id(7, "s", 1, 1767225600)
    assert rid.startswith("qrycpl-") and rid.endswith("-1767225600") and len(rid) == 7 + 32 + 11
    assert ids.metadata_id("qrycpl-0123456789abcdef0123456789abcdef-1767225600", 0, 1767225600) == (
        "gen-1767225600-7AC4RnqdA5OBO5hUxWp4"
    )

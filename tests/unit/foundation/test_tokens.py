"""emulator/tokens.py: the deterministic token approximation every count and cut is built on."""

from __future__ import annotations

import pytest

from zenmux_emulator.foundation import tokens

TEXTS = [
    "Hello, world!",
    "The quick brown fox jumps over the lazy dog.",
    "internationalization 1234567 times",
    "你好，世界。今天天气很好",
    "emoji 😀👍🏽 family 👨‍👩‍👧 flag 🇫🇷",
    "  leading and trailing spaces  ",
    "tabs\tand\nnew\r\nlines\n\n",
    "\u00a0non-breaking\u2003em space\u3000ideographic",
    "e\u0301 combining accent, Ünïcödé, straße, привет",
    "",
    " ",
    "\n",
    "a" * 50,
]


@pytest.mark.parametrize("text", TEXTS)
def test_pieces_join_back_into_the_text(text: str):
    assert "".join(tokens.pieces(text)) == text


@pytest.mark.parametrize("text", TEXTS)
def test_count_is_the_number_of_pieces(text: str):
    assert tokens.count(text) == len(tokens.pieces(text))


@pytest.mark.parametrize("text", [t for t in TEXTS if t])
def test_no_piece_is_empty(text: str):
    assert all(tokens.pieces(text))


def test_ascii_words_take_their_leading_space():
    assert tokens.pieces("one two  three") == ["one", " two", "  three"]


def test_long_words_are_split_every_six_letters_and_numbers_every_three_digits():
    assert tokens.pieces("internationalization") == ["intern", "ationa", "lizati", "on"]
    assert tokens.pieces("1234567") == ["123", "456", "7"]


def test_cjk_characters_and_punctuation_are_one_piece_each():
    assert tokens.pieces("你好，世界") == ["你", "好", "，", "世", "界"]
    assert tokens.count("你好，世界") == 5


def test_an_emoji_is_one_piece_per_code_point():
    assert tokens.pieces("hi 😀") == ["hi", " 😀"]
    assert tokens.count("👨‍👩‍👧") == 5  # three people joined by two zero-width joiners


def test_whitespace_alone_is_one_piece():
    assert tokens.pieces("   ") == ["   "]
    assert tokens.pieces("end \n") == ["end", " \n"]


def test_count_of_the_empty_text_is_zero():
    assert tokens.count("") == 0
    assert tokens.pieces("") == []


def test_counting_is_stable():
    text = "The same text always counts the same: 42 tokens? 你好 😀"
    assert len({tokens.count(text) for _ in range(5)}) == 1


@pytest.mark.parametrize("text", [t for t in TEXTS if t])
def test_truncate_keeps_a_prefix_of_at_most_limit_tokens(text: str):
    total = tokens.count(text)
    for limit in range(0, total + 2):
        cut, truncated = tokens.truncate(text, limit)
        assert text.startswith(cut)
        assert tokens.count(cut) == min(limit, total)
        assert truncated == (limit < total)


def test_truncate_examples():
    assert tokens.truncate("one two three", 2) == ("one two", True)
    assert tokens.truncate("one two three", 3) == ("one two three", False)
    assert tokens.truncate("one two three", 99) == ("one two three", False)
    assert tokens.truncate("你好世界", 1) == ("你", True)
    assert tokens.truncate("", 0) == ("", False)


# --- counting with a limit: stops once past it -----------------------------------------------------

LONG = (
    "Lorem ipsum dolor sit amet, 12345 consectetur — 你好世界 😀 " * 5000
    + " " * 200_000
    + "tail words\n"
    + "\t" * 70_000
    + "x"
)


def test_a_count_within_its_limit_is_exact():
    full = tokens.count(LONG)
    assert full == len(tokens.pieces(LONG))
    assert tokens.count(LONG, full) == full
    assert tokens.count(LONG, full + 1) == full


@pytest.mark.parametrize("limit", [0, 1, 1_000, 50_000])
def test_a_count_past_its_limit_stops_soon_after_it(limit: int):
    full = tokens.count(LONG)
    stopped = tokens.count(LONG, limit)
    assert limit < stopped < full  # past the limit, and not counted to the end


def test_no_room_left_counts_nothing_more_of_a_long_text():
    """A prompt's counter passes the room left; below zero it is past the window already."""
    assert tokens.count(LONG, -1) == 0
    assert tokens.count("short text", -1) == 2  # short texts are counted whole, from the memo


# --- issue 31, item 6: a text past ESTIMATED_PAST characters is counted on samples -------------------

HUGE = {
    "prose": "Lorem ipsum dolor sit amet, 12345 consectetur adipiscing. " * 40_000,
    "mixed": ("def f(x):\n    return x * 42  # 你好 😀\n" + "Weather in Paris: sunny, 21°C. ") * 40_000,
    "spaces and data": ('{"id": 123456, "tags": ["a", "b"], "note": "   "}\n' + " " * 500) * 4_000,
}


@pytest.mark.parametrize("name", list(HUGE))
def test_a_huge_text_is_estimated_within_a_few_percent_the_same_every_time(name: str):
    text = HUGE[name]
    assert len(text) > tokens.ESTIMATED_PAST
    exact = len(tokens.pieces(text))
    estimated = tokens.count(text)
    assert abs(estimated - exact) <= exact * 0.03, (estimated, exact)
    assert tokens.count(text) == estimated
    assert tokens.count(text, exact * 2) == estimated  # a limit it is below does not change the estimate

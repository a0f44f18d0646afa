"""Generate the scenario folders the benchmark serves (written to a temporary directory)."""

from __future__ import annotations

from pathlib import Path

#: 50 words of at most six Latin letters: 50 tokens under the emulator's token counting.
WORDS: tuple[str, ...] = (
    "alpha",
    "bravo",
    "delta",
    "echo",
    "golf",
    "hotel",
    "india",
    "kilo",
    "lima",
    "mike",
    "oscar",
    "papa",
    "romeo",
    "sierra",
    "tango",
    "victor",
    "yankee",
    "zulu",
    "amber",
    "birch",
    "cedar",
    "dune",
    "ember",
    "fern",
    "grove",
    "heath",
    "iris",
    "jade",
    "kelp",
    "lotus",
    "maple",
    "nectar",
    "olive",
    "pine",
    "quartz",
    "reed",
    "sage",
    "thyme",
    "umber",
    "vine",
    "willow",
    "yarrow",
    "zinc",
    "acorn",
    "basil",
    "clover",
    "daisy",
    "elm",
    "flax",
    "gem",
)
CONTENT: str = " ".join(WORDS)
assert len(WORDS) == 50

PLAIN_PROMPT = "bench plain"
STREAM_PROMPT = "bench stream"
PACED_PROMPT = "bench paced"
PACED_CHUNK_MS = 20
#: The paced streams are long (250 content chunks, 5 s at 20 ms), so memory per open stream shows
#: whether a server holds a stream's events or makes them as it goes (issue 16).
PACED_WORDS: tuple[str, ...] = WORDS * 5
PACED_CONTENT: str = " ".join(PACED_WORDS)


def _filler(i: int) -> str:
    """A rule that never matches the benchmark's prompts but must be checked before the answering ones."""
    return (
        f'  - {{name: filler-{i}, match: {{last_user: {{equals: "never {i}"}}}}, reply: {{content: "filler {i}"}}}}\n'
    )


def write_scenarios(folder: Path, total_rules: int) -> Path:
    """Write one `bench.yaml` with `total_rules` rules; the three answering rules come last (worst case)."""
    folder.mkdir(parents=True, exist_ok=True)
    answering = (
        f'  - {{name: plain, match: {{last_user: {{equals: "{PLAIN_PROMPT}"}}}}, reply: {{content: "{CONTENT}"}}}}\n'
        f'  - {{name: stream, match: {{stream: true, last_user: {{equals: "{STREAM_PROMPT}"}}}},'
        f' reply: {{content: "{CONTENT}", stream: {{chunk_tokens: 1}}}}}}\n'
        f'  - {{name: paced, match: {{stream: true, last_user: {{equals: "{PACED_PROMPT}"}}}},'
        f' reply: {{content: "{PACED_CONTENT}", stream: {{chunk_tokens: 1, chunk_ms: {PACED_CHUNK_MS}}}}}}}\n'
    )
    fillers = "".join(_filler(i) for i in range(max(0, total_rules - 3)))
    path = folder / "bench.yaml"
    path.write_text("rules:\n" + fillers + answering, encoding="utf-8")
    return folder

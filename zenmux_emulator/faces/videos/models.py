"""The video models ZenMux documents (docs_source/en/api/zenmux/generate-videos-native.md,
api/vertexai/generate-videos.md): what each offers (resolutions, longest video, defaults), and
their catalogue entries, each second of video priced by resolution (`pricings.video`, `perSecond`:
the emulator's videos are silent, so never `audio_and_video`). ZenMux lists no priced video model
(its docs and the catalogue give none), so the prices are the providers' published ones for silent
video: Veo 3.1 on Vertex AI, $0.20 a second at 720p and 1080p alike (with audio $0.40); Seedance
1.5 Pro on BytePlus ModelArk, $1.2 per million tokens without audio, a second's tokens being
width x height x 24 fps / 1024 at BytePlus's 16:9 sizes (864x480, 1280x720, 1920x1080). No USD
price for Seedance 2.0 was found: its two ids are priced as 1.5 Pro, a placeholder a scenario's
`models:` overrides. The prompt is not billed by tokens."""

from __future__ import annotations

from dataclasses import dataclass

from zenmux_emulator.scenario.schema import ModelSpec, Pricing, UnitPrice


@dataclass(frozen=True, slots=True)
class Offer:
    """What a video model makes: its resolutions, its longest video and its default length (s)."""

    resolutions: tuple[str, ...]
    max_seconds: int
    default_seconds: int
    default_resolution: str = "720p"


SEEDANCE = Offer(("480p", "720p", "1080p"), 10, 5)
VEO = Offer(("720p", "1080p"), 8, 8)

OFFERS: dict[str, Offer] = {
    "bytedance/doubao-seedance-2.0": SEEDANCE,
    "volcengine/doubao-seedance-2": SEEDANCE,
    "volcengine/doubao-seedance-1.5-pro": SEEDANCE,
    "google/veo-3.1-generate-001": VEO,
}


SEEDANCE_FRAMES = {"480p": (864, 480), "720p": (1280, 720), "1080p": (1920, 1080)}
"""BytePlus's frame size at each resolution (16:9), which its token count is taken from."""
SEEDANCE_PER_MILLION = 1.2
"""USD per million tokens of silent video, Seedance 1.5 Pro on BytePlus ModelArk."""
VEO_PER_SECOND = 0.20
"""USD a second of silent video, Veo 3.1 on Vertex AI (720p and 1080p)."""


def seedance_prices() -> list[UnitPrice]:
    """A second's price at each resolution: its tokens (width x height x 24 fps / 1024) at the rate."""
    return [
        UnitPrice(
            value=round(width * height * 24 / 1024 * SEEDANCE_PER_MILLION / 1_000_000, 6),
            unit="perSecond",
            when={"resolution": resolution},
        )
        for resolution, (width, height) in SEEDANCE_FRAMES.items()
    ]


def _video_model(name: str, owner: str, seconds: list[UnitPrice]) -> ModelSpec:
    return ModelSpec(
        display_name=name,
        context_length=32_000,
        pricing=Pricing(prompt=0.0, completion=0.0, units={"video": seconds}),
        owned_by=owner,
        tool_call=False,
        temperature=False,
        input_modalities=["text", "image"],
        output_modalities=["video"],
    )


CATALOGUE: dict[str, ModelSpec] = {
    "bytedance/doubao-seedance-2.0": _video_model("ByteDance: Doubao Seedance 2.0", "bytedance", seedance_prices()),
    "volcengine/doubao-seedance-2": _video_model("Volcengine: Doubao Seedance 2", "volcengine", seedance_prices()),
    "volcengine/doubao-seedance-1.5-pro": _video_model(
        "Volcengine: Doubao Seedance 1.5 Pro", "volcengine", seedance_prices()
    ),
    "google/veo-3.1-generate-001": _video_model(
        "Google: Veo 3.1", "google", [UnitPrice(value=VEO_PER_SECOND, unit="perSecond")]
    ),
}

"""The video models ZenMux documents (docs_source/en/api/zenmux/generate-videos-native.md,
api/vertexai/generate-videos.md): what each offers (resolutions, longest video, defaults), and
their catalogue entries. Their prices are per million tokens of prompt, as every face's are until
the per-second units come."""

from __future__ import annotations

from dataclasses import dataclass

from zenmux_emulator.scenario.schema import ModelSpec, Pricing


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


def _video_model(name: str, owner: str) -> ModelSpec:
    return ModelSpec(
        display_name=name,
        context_length=32_000,
        pricing=Pricing(prompt=0.0, completion=0.0),
        owned_by=owner,
        tool_call=False,
        temperature=False,
        input_modalities=["text", "image"],
        output_modalities=["video"],
    )


CATALOGUE: dict[str, ModelSpec] = {
    "bytedance/doubao-seedance-2.0": _video_model("ByteDance: Doubao Seedance 2.0", "bytedance"),
    "volcengine/doubao-seedance-2": _video_model("Volcengine: Doubao Seedance 2", "volcengine"),
    "volcengine/doubao-seedance-1.5-pro": _video_model("Volcengine: Doubao Seedance 1.5 Pro", "volcengine"),
    "google/veo-3.1-generate-001": _video_model("Google: Veo 3.1", "google"),
}

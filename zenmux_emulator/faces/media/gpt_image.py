"""OpenAI's GPT image sizes and qualities, as ZenMux takes them on the images API (`size`) and on
Vertex AI's `:predict` (the `imageSize` passthrough): the three presets and `auto`, and for
gpt-image-2 any `WxH` within the bounds ZenMux's guide gives."""

from __future__ import annotations

from zenmux_emulator.foundation.errors import invalid_params

PRESETS = ("1024x1024", "1536x1024", "1024x1536")
QUALITIES = ("low", "medium", "high", "auto")
FREE_SIZES = frozenset({"openai/gpt-image-2"})
"""The models that take any `WxH` within the guide's bounds, not only the presets."""
MAX_EDGE, MIN_PIXELS, MAX_PIXELS = 3840, 655_360, 8_294_400


def size_of(value: str, model: str, field: str = "size") -> tuple[int, int]:
    """The width and height `value` asks of `model` (`auto` is 1024x1024); a size it does not
    offer is a 400 naming `field`."""
    if value == "auto":
        return 1024, 1024
    if value in PRESETS:
        preset_width, _, preset_height = value.partition("x")
        return int(preset_width), int(preset_height)
    width_text, x, height_text = value.partition("x")
    if model not in FREE_SIZES or not x or not (width_text.isdigit() and height_text.isdigit()):
        raise invalid_params(
            f"Parameter {field} is not valid: {value!r} is not a size {model} offers (auto, {', '.join(PRESETS)})"
        )
    width, height = int(width_text), int(height_text)
    if (
        width % 16
        or height % 16
        or max(width, height) > MAX_EDGE
        or max(width, height) > 3 * min(width, height)
        or not MIN_PIXELS <= width * height <= MAX_PIXELS
    ):
        raise invalid_params(
            f"Parameter {field} is not valid: {value!r}: sides must be multiples of 16, at most {MAX_EDGE}, "
            f"between 1:3 and 3:1, and {MIN_PIXELS} to {MAX_PIXELS} pixels in all"
        )
    return width, height

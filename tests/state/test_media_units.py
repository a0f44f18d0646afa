"""Media priced in ZenMux's units with the state in Redis (`--state`): images counted and seconds of
audio metered on one instance are what the other's Platform API reports."""

from __future__ import annotations

import pytest

from tests.conftest import MakeServer
from tests.faces.platform.test_media_units import IMAGE, MONTH, SCENARIO, TRANSCRIBE, management, wav
from tests.support.clients import sdk


def test_the_other_instance_reports_the_same_images_and_seconds(make_server: MakeServer, redis_url: str) -> None:
    a, b = make_server(SCENARIO, state=redis_url), make_server(SCENARIO, state=redis_url)
    with sdk(a, "shared") as client:
        client.images.generate(model=IMAGE, prompt="a kite", n=2, quality="low", size="1024x1024")
        client.audio.transcriptions.create(model=TRANSCRIBE, file=("a.wav", wav(3.0), "audio/wav"))
    usage = management(b, f"usage?type=usage&{MONTH}")["data"]
    media = {row["modelSlug"]: row for row in usage["countsByMedia"]}
    assert (media[IMAGE]["counts"], media[TRANSCRIBE]["seconds"]) == ("2", "3.000")
    cost = management(b, f"cost?type=cost&{MONTH}")["data"]["summary"]
    assert float(cost["otherCost"]) == pytest.approx(0.022 + 3.0 * 0.0001)
    assert management(a, f"usage?type=usage&{MONTH}")["data"] == usage

"""`with_key`: the upstream's key in place of whatever credentials the caller sent, in the header (or `?key=`)
the caller used, and a Bearer header when it sent none."""

from __future__ import annotations

from yarl import URL

from zenmux_emulator.record.upstream import with_key

KEY = "sk-ai-v1-upstream"
PATH = URL("/api/v1/chat/completions")


def test_a_bearer_header_carries_the_upstream_key_instead():
    headers, path = with_key({"Authorization": "Bearer sk-zenmux-test-1", "Accept": "x"}, PATH, KEY)
    assert headers == {"Authorization": f"Bearer {KEY}", "Accept": "x"} and path is None


def test_each_face_s_key_header_is_replaced_and_proxy_credentials_dropped():
    sent = {"x-api-key": "mine", "x-goog-api-key": "mine too", "Proxy-Authorization": "Basic abc"}
    headers, _ = with_key(sent, PATH, KEY)
    assert headers == {"x-api-key": KEY, "x-goog-api-key": KEY}


def test_a_key_in_the_query_is_replaced_there_and_nothing_added():
    url = URL("/api/vertex-ai/v1beta/models/google/gemini-2.5-pro:generateContent?key=mine&alt=sse")
    headers, path = with_key({"Content-Type": "application/json"}, url, KEY)
    assert headers == {"Content-Type": "application/json"}
    assert path is not None and URL(path).query == {"key": KEY, "alt": "sse"}


def test_a_request_without_credentials_gets_a_bearer_header():
    headers, path = with_key({}, PATH, KEY)
    assert headers == {"Authorization": f"Bearer {KEY}"} and path is None

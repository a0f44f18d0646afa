"""render/signatures.py: reasoning signatures bound to family, index and text, and encrypted
payloads bound to their item id, under one secret."""

from __future__ import annotations

import base64

import pytest

from zenmux_emulator.foundation.signatures import Signer

TEXT = "用户想知道2025年8月15日上海的天气情况。I need search_city_weather."


@pytest.fixture
def signer() -> Signer:
    return Signer.from_settings(20251, None)


def test_a_signature_is_deterministic_and_verifies(signer: Signer):
    signature = signer.sign("anthropic", 0, TEXT)
    assert signature == signer.sign("anthropic", 0, TEXT)
    assert signer.verify("anthropic", 0, TEXT, signature)
    assert Signer.from_settings(20251, None).verify("anthropic", 0, TEXT, signature)


def test_a_signature_looks_like_a_real_one(signer: Signer):
    signature = signer.sign("anthropic", 0, TEXT)
    raw = base64.b64decode(signature, validate=True)
    assert len(raw) == 240
    assert 300 <= len(signature) <= 340
    assert signature != signer.sign("anthropic", 0, TEXT + " ")


@pytest.mark.parametrize(
    ("family", "index", "text"),
    [
        ("google", 0, TEXT),  # another family
        ("openai", 0, TEXT),
        ("anthropic", 1, TEXT),  # another index
        ("anthropic", 0, TEXT + "."),  # edited text
        ("anthropic", 0, TEXT[:-1]),
        ("anthropic", 0, ""),
    ],
)
def test_a_signature_is_bound_to_family_index_and_text(signer: Signer, family: str, index: int, text: str):
    signature = signer.sign("anthropic", 0, TEXT)
    assert not signer.verify(family, index, text, signature)


def test_an_edited_signature_does_not_verify(signer: Signer):
    signature = signer.sign("google", 2, TEXT)
    for position in (0, 5, len(signature) // 2, len(signature) - 3):
        replacement = "A" if signature[position] != "A" else "B"
        edited = signature[:position] + replacement + signature[position + 1 :]
        assert not signer.verify("google", 2, TEXT, edited), position
    assert not signer.verify("google", 2, TEXT, "")
    assert not signer.verify("google", 2, TEXT, signature[:-4])


def test_the_secret_decides(signer: Signer):
    signature = signer.sign("anthropic", 0, TEXT)
    assert not Signer.from_settings(20252, None).verify("anthropic", 0, TEXT, signature)
    assert not Signer.from_settings(20251, "a secret").verify("anthropic", 0, TEXT, signature)
    with_secret = Signer.from_settings(1, "a secret").sign("anthropic", 0, TEXT)
    # an explicit secret replaces the seed's
    assert Signer.from_settings(2, "a secret").verify("anthropic", 0, TEXT, with_secret)
    assert not Signer.from_settings(1, "another").verify("anthropic", 0, TEXT, with_secret)
    assert Signer(b"raw").sign("x", 0, "t") == Signer(b"raw").sign("x", 0, "t") != Signer(b"raw2").sign("x", 0, "t")


def test_encrypted_payloads_round_trip(signer: Signer):
    data = signer.encrypt("rs_item_1", TEXT)
    assert data.startswith("gAAAAA")
    assert data == signer.encrypt("rs_item_1", TEXT)
    assert signer.check_encrypted("rs_item_1", data)
    assert Signer.from_settings(20251, None).check_encrypted("rs_item_1", data)
    raw = base64.urlsafe_b64decode(data)
    assert TEXT.encode() not in raw  # the text is masked, not in clear
    assert len(raw) == 9 + 32 + len(TEXT.encode())


def test_encrypted_payloads_are_bound_to_item_and_secret(signer: Signer):
    data = signer.encrypt("rs_item_1", TEXT)
    assert not signer.check_encrypted("rs_item_2", data)
    assert not Signer.from_settings(20252, None).check_encrypted("rs_item_1", data)
    assert signer.encrypt("rs_item_2", TEXT) != data


def test_every_tampered_byte_of_an_encrypted_payload_is_caught(signer: Signer):
    data = signer.encrypt("rs_item_1", "short text")
    raw = bytearray(base64.urlsafe_b64decode(data))
    for position in range(len(raw)):
        tampered = bytearray(raw)
        tampered[position] ^= 0x01
        assert not signer.check_encrypted("rs_item_1", base64.urlsafe_b64encode(bytes(tampered)).decode()), position


@pytest.mark.parametrize(
    "data",
    [
        "",
        "not base64 at all!!",
        "gAAAAA",
        base64.urlsafe_b64encode(b"\x80" + bytes(8)).decode(),
        base64.urlsafe_b64encode(b"\x81" + bytes(60)).decode(),
    ],
)
def test_garbage_is_not_a_valid_encrypted_payload(signer: Signer, data: str):
    assert signer.check_encrypted("rs_item_1", data) is False


def test_truncated_or_extended_payloads_fail(signer: Signer):
    data = signer.encrypt("rs_item_1", TEXT)
    raw = base64.urlsafe_b64decode(data)
    assert not signer.check_encrypted("rs_item_1", base64.urlsafe_b64encode(raw[:-1]).decode())
    assert not signer.check_encrypted("rs_item_1", base64.urlsafe_b64encode(raw + b"x").decode())

"""Requests, scripts and expected bodies of the spec's examples A and D (transcribed; created 1767225600)."""

from __future__ import annotations

from typing import Any

CREATED = 1767225600
ID_A = "qrycpl-0123456789abcdef0123456789abcdef-1767225600"
ID_D = "qrycpl-00112233445566778899aabbccddeeff-1767225600"


def llm(slug: str, mode: str, weight: float, **extra: Any) -> dict[str, Any]:
    return {"id": slug, "mode": mode, "weight": {"type": "static", "weight": weight}, **extra}


REQUEST_A: dict[str, Any] = {
    "messages": [
        {"role": "user", "content": "What websites can I use to find more clients for my English tutoring business?"}
    ],
    "model": {
        "models": [
            llm("openai/gpt-5-nano", "generate", 1),
            llm("openai/gpt-5-mini", "generate", 1),
            llm("google/gemini-2.5-flash", "generate", 1),
        ],
        "weight": {"type": "static"},
    },
    "response_format": {
        "type": "json_schema",
        "json_schema": {
            "name": "Websites",
            "strict": True,
            "schema": {
                "type": "object",
                "properties": {
                    "1_options": {"type": "array", "items": {"type": "string"}, "_confidence": False},
                    "2_think_rank_1_option": {"type": "string", "_confidence": False},
                    "3_rank_1_option": {"type": "string"},
                },
                "required": ["1_options", "2_think_rank_1_option", "3_rank_1_option"],
                "additionalProperties": False,
            },
        },
    },
}

SCRIPT_A: dict[str, Any] = {
    "llms": [
        {
            "match": {"id": "openai/gpt-5-nano"},
            "output": {
                "json": {
                    "1_options": ["https://www.italki.com", "https://preply.com"],
                    "2_think_rank_1_option": "italki has the largest tutor marketplace.",
                    "3_rank_1_option": "https://www.italki.com",
                },
                "usage": {"prompt_tokens": 40, "completion_tokens": 60},
            },
        },
        {
            "match": {"id": "openai/gpt-5-mini"},
            "output": {
                "json": {
                    "1_options": ["https://preply.com", "https://www.italki.com", "https://www.cambly.com"],
                    "2_think_rank_1_option": "italki lets tutors set their own rates.",
                    "3_rank_1_option": "https://www.italki.com",
                },
                "usage": {"prompt_tokens": 40, "completion_tokens": 75},
            },
        },
        {
            "match": {"id": "google/gemini-2.5-flash"},
            "output": {
                "json": {
                    "1_options": ["https://preply.com"],
                    "2_think_rank_1_option": "Preply is easy to start on.",
                    "3_rank_1_option": "https://preply.com",
                },
                "usage": {"prompt_tokens": 38, "completion_tokens": 50},
            },
        },
    ]
}


def _choice_a(
    content: str,
    index: int,
    gid: str,
    cid: str,
    conf: float,
    model: str,
    meta: str,
    slug: str,
    completion: int,
    prompt: int,
) -> dict[str, Any]:
    return {
        "message": {"content": content, "refusal": None, "role": "assistant"},
        "finish_reason": "stop",
        "index": index,
        "logprobs": None,
        "generate_id": gid,
        "confidence_id": cid,
        "confidence_weight": 1.0,
        "confidence": conf,
        "model": model,
        "model_index": index,
        "completion_metadata": {
            "id": meta,
            "created": CREATED,
            "model": slug,
            "usage": {"completion_tokens": completion, "prompt_tokens": prompt, "total_tokens": completion + prompt},
        },
    }


EXPECTED_A: dict[str, Any] = {
    "id": ID_A,
    "choices": [
        _choice_a(
            '{"1_options":["https://preply.com","https://www.italki.com","https://www.cambly.com"],'
            '"2_think_rank_1_option":"italki lets tutors set their own rates.",'
            '"3_rank_1_option":"https://www.italki.com"}',
            0,
            "12ibKyKlaWc7JM86MZbqYF",
            "6t6PEUQEoRXO7bop1tENWx",
            0.6666666666666666,
            "5Fr43anduAkLuCN7PL9BAK",
            "gen-1767225600-7AC4RnqdA5OBO5hUxWp4",
            "openai/gpt-5-mini",
            75,
            40,
        ),
        _choice_a(
            '{"1_options":["https://www.italki.com","https://preply.com"],'
            '"2_think_rank_1_option":"italki has the largest tutor marketplace.",'
            '"3_rank_1_option":"https://www.italki.com"}',
            1,
            "3joyeCOAOuPmo7zFQg5RsB",
            "6t6PEUQEoRXO7bop1tENWx",
            0.6666666666666666,
            "61jFz6OhuRTAKokNtby9Qn",
            "gen-1767225600-5tzpUxHHlJntmjUGV48b",
            "openai/gpt-5-nano",
            60,
            40,
        ),
        _choice_a(
            '{"1_options":["https://preply.com"],"2_think_rank_1_option":"Preply is easy to start on.",'
            '"3_rank_1_option":"https://preply.com"}',
            2,
            "5WqUy6qHrFcWXjDOS9cMqd",
            "167XxNxYXUKHFzT0b6iaAN",
            0.3333333333333333,
            "7W051ct7yeEWFZczC98xKl",
            "gen-1767225600-1PaTsJAkqtD7BMCPW3dA",
            "google/gemini-2.5-flash",
            50,
            38,
        ),
    ],
    "created": CREATED,
    "model": "objectiveai/2FgLFqAf8M6MTa6MtGLLwM",
    "object": "chat.completion",
    "usage": {"completion_tokens": 185, "prompt_tokens": 118, "total_tokens": 303},
}

REQUEST_D: dict[str, Any] = {
    "messages": [
        {"role": "system", "content": "You review pull requests."},
        {"role": "user", "content": "Approve this one-line typo fix?"},
    ],
    "model": {
        "models": [
            llm("openai/gpt-4o-mini", "select_non_thinking", 1),
            llm("google/gemini-2.5-flash-lite", "select_non_thinking_logprobs", 3),
        ],
        "weight": {"type": "static"},
    },
    "response_format": {
        "type": "json_schema",
        "json_schema": {
            "name": "Verdict",
            "strict": True,
            "schema": {
                "type": "object",
                "properties": {"approved": {"type": "boolean"}},
                "required": ["approved"],
                "additionalProperties": False,
            },
        },
    },
    "select_deterministic": True,
}

SCRIPT_D: dict[str, Any] = {
    "llms": [
        {
            "match": {"id": "openai/gpt-4o-mini"},
            "output": {"vote": {"json": {"approved": True}}, "usage": {"prompt_tokens": 52, "completion_tokens": 8}},
        },
        {
            "match": {"id": "google/gemini-2.5-flash-lite"},
            "output": {
                "vote": [
                    {"to": {"json": {"approved": True}}, "p": 0.9},
                    {"to": {"json": {"approved": False}}, "p": 0.1},
                ],
                "usage": {"prompt_tokens": 50, "completion_tokens": 8},
            },
        },
    ]
}

TRUE_ID = "4Zjy6BMklNXwutCtXC5nOT"
FALSE_ID = "27emL2kxexyY2vYDZIMWPm"


def _fixed(content: str, index: int, cid: str, conf: float) -> dict[str, Any]:
    return {
        "message": {"content": content, "refusal": None, "role": "assistant"},
        "finish_reason": "stop",
        "index": index,
        "logprobs": None,
        "generate_id": cid,
        "confidence_id": cid,
        "confidence_weight": None,
        "confidence": conf,
        "model": "Verdict",
        "model_index": None,
        "completion_metadata": {"id": ID_D, "created": CREATED, "model": "Verdict"},
    }


def _vote(
    index: int, cid: Any, weight: float, conf: float, model: str, model_index: int, meta: str, slug: str, prompt: int
) -> dict[str, Any]:
    return {
        "message": {"content": TRUE_ID, "refusal": None, "role": "assistant"},
        "finish_reason": "stop",
        "index": index,
        "logprobs": None,
        "generate_id": None,
        "confidence_id": cid,
        "confidence_weight": weight,
        "confidence": conf,
        "model": model,
        "model_index": model_index,
        "completion_metadata": {
            "id": meta,
            "created": CREATED,
            "model": slug,
            "usage": {"completion_tokens": 8, "prompt_tokens": prompt, "total_tokens": 8 + prompt},
        },
    }


EXPECTED_D: dict[str, Any] = {
    "id": ID_D,
    "choices": [
        _fixed('{"approved":true}', 1, TRUE_ID, 0.925),
        _vote(
            2,
            TRUE_ID,
            1.0,
            0.925,
            "1LSUsYUODhIPTT1uoLliQ7",
            0,
            "gen-1767225600-753D0d7VmomvxxhfetVf",
            "openai/gpt-4o-mini",
            52,
        ),
        _vote(
            3,
            {TRUE_ID: 0.9, FALSE_ID: 0.1},
            3.0,
            0.84,
            "5IBNbzlPL4mTLkNsugLht2",
            1,
            "gen-1767225600-2EmrXpPFkLCUDMXssN9z",
            "google/gemini-2.5-flash-lite",
            50,
        ),
        _fixed('{"approved":false}', 0, FALSE_ID, 0.07500000000000001),
    ],
    "created": CREATED,
    "model": "objectiveai/3yOw7ZxSvwCyH4DSxJOPXZ",
    "object": "chat.completion",
    "usage": {"completion_tokens": 16, "prompt_tokens": 102, "total_tokens": 118},
}

# Example B's request and script (its expected body is kept back by the spec; tests derive it from the rules)
ID_B = "qrycpl-ffeeddccbbaa99887766554433221100-1767225600"
REQUEST_B: dict[str, Any] = {
    "messages": [{"role": "user", "content": "What is the capital of France?"}],
    "model": {
        "models": [
            llm("openai/gpt-5-nano", "generate", 1),
            llm("openai/gpt-5-mini", "generate", 1),
            llm("google/gemini-2.5-flash", "generate", 1),
            llm("openai/gpt-4o-mini", "select_non_thinking_logprobs", 2, select_top_logprobs=5),
            llm("anthropic/claude-haiku-4.5", "select_thinking", 1),
        ],
        "weight": {"type": "static"},
    },
    "usage": {"include": True},
}
SCRIPT_B: dict[str, Any] = {
    "llms": [
        {
            "match": {"id": "openai/gpt-5-nano"},
            "output": {
                "content": "Paris",
                "provider": "OpenAI",
                "usage": {"prompt_tokens": 18, "completion_tokens": 2, "cost": 0.00001},
            },
        },
        {
            "match": {"id": "openai/gpt-5-mini"},
            "output": {
                "content": "Paris.",
                "provider": "OpenAI",
                "usage": {"prompt_tokens": 18, "completion_tokens": 3, "cost": 0.00002},
            },
        },
        {"match": {"id": "google/gemini-2.5-flash"}, "output": {"error": {"code": 502, "message": "Bad Gateway"}}},
        {
            "match": {"id": "openai/gpt-4o-mini"},
            "output": {
                "vote": [{"to": "openai/gpt-5-nano", "p": 0.75}, {"to": "openai/gpt-5-mini", "p": 0.25}],
                "provider": "OpenAI",
                "usage": {"prompt_tokens": 60, "completion_tokens": 9, "cost": 0.00003},
            },
        },
        {
            "match": {"id": "anthropic/claude-haiku-4.5"},
            "output": {
                "vote": "openai/gpt-5-nano",
                "reasoning": "Both name Paris; the first answers in one word.",
                "provider": "Anthropic",
                "usage": {"prompt_tokens": 75, "completion_tokens": 30, "reasoning_tokens": 18, "cost": 0.00012},
            },
        },
    ]
}
PARIS = "5NkzPRHh9cbR32r7EbmoEC"
PARIS_DOT = "1P7iXhQbRfMBV63Puy0L9U"

# Example E: one LLM that fails mid-stream with a 429
ID_E = "qrycpl-0000000000000000000000000000000e-1767225600"
REQUEST_E: dict[str, Any] = {
    "messages": [{"role": "user", "content": "Say hello"}],
    "model": {"models": [llm("openai/gpt-5-nano", "generate", 1)], "weight": {"type": "static"}},
}
E_ERROR = {"kind": "provider", "message": "Rate limit exceeded", "metadata": None}
SCRIPT_E: dict[str, Any] = {
    "llms": [
        {
            "match": {"id": "*"},
            "output": {"content": "Hello there", "error": {"code": 429, "message": E_ERROR, "after_chars": 5}},
        }
    ]
}

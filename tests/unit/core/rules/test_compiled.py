"""What loading works out once for every request: whether a reply has templates to render."""

from __future__ import annotations

from tests.support.shipped import build_set

FILE = """\
rules:
  - name: plain
    reply: {content: "Hello {name}, braces are text"}
  - name: templated content
    reply: {content: "Model {{ request.model }}"}
  - name: templated refusal
    reply: {refusal: "No, {{ fake.first_name() }}"}
  - name: templated reasoning
    reply: {content: plain, reasoning: "{{ request.last_user }}"}
"""


def test_only_replies_with_a_template_are_rendered_per_request() -> None:
    scenarios = build_set([("f.yaml", FILE)])
    flags = {rule.name: rule.replies[0].templated for rule in scenarios.rules}
    assert flags == {"plain": False, "templated content": True, "templated refusal": True, "templated reasoning": True}

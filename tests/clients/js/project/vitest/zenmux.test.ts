// The zenmux fixture from Vitest: a rule loaded for the test, answered on the chat and Anthropic faces with the
// official Node SDKs and through the AI SDK, and a second test that sees none of the first's requests.
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import Anthropic from "@anthropic-ai/sdk";
import { generateText } from "ai";
import OpenAI from "openai";
import { expect, test } from "zenmux-emulator/vitest";

test("a rule answers chat, Anthropic and the AI SDK", async ({ zenmux }) => {
  await zenmux.addRule({ name: "greet", match: { last_user: "hello" }, reply: { content: "Hi from the rule" } });
  const openai = new OpenAI({ baseURL: zenmux.baseUrl("chat"), apiKey: zenmux.apiKey, maxRetries: 0 });
  const chat = await openai.chat.completions.create({
    model: "openai/gpt-5.4-mini",
    messages: [{ role: "user", content: "hello there" }],
  });
  expect(chat.choices[0].message.content).toBe("Hi from the rule");
  const anthropic = new Anthropic({ baseURL: zenmux.baseUrl("anthropic"), apiKey: zenmux.apiKey, maxRetries: 0 });
  const message = await anthropic.messages.create({
    model: "anthropic/claude-sonnet-4.5",
    max_tokens: 100,
    messages: [{ role: "user", content: "hello again" }],
  });
  expect(message.content).toEqual([expect.objectContaining({ type: "text", text: "Hi from the rule" })]);
  const provider = createOpenAICompatible({ name: "zenmux", baseURL: zenmux.baseUrl("chat"), apiKey: zenmux.apiKey });
  const { text } = await generateText({ model: provider.chatModel("openai/gpt-5.4-mini"), prompt: "hello, AI SDK", maxRetries: 0 });
  expect(text).toBe("Hi from the rule");
  const requests = await zenmux.requests();
  expect(requests.map((r) => [r.path, r.rule, r.status])).toEqual([
    ["/api/v1/chat/completions", "greet", 200],
    ["/api/anthropic/v1/messages", "greet", 200],
    ["/api/v1/chat/completions", "greet", 200],
  ]);
  expect(await zenmux.unmatched()).toEqual([]);
  await zenmux.assertAllRulesUsed();
  expect(await zenmux.verdict()).toEqual([]);
  await zenmux.addRule({ name: "call", match: { last_user: "weather" }, reply: { tool_calls: [{ name: "get_weather", arguments: { city: "Paris" } }] } });
  const tools = [{ type: "function" as const, function: { name: "get_weather", parameters: { type: "object" } } }];
  await openai.chat.completions.create({ model: "openai/gpt-5.4-mini", messages: [{ role: "user", content: "weather?" }], tools });
  const [finding] = await zenmux.verdict();  // the tool call was never answered
  expect(finding).toMatchObject({ check: "tool_calls", seq: expect.any(Number), message: expect.stringMatching(/get_weather/) });
});

test("a second test sees none of the first's requests, nor its rule", async ({ zenmux }) => {
  expect(await zenmux.requests()).toEqual([]);
  const openai = new OpenAI({ baseURL: zenmux.baseUrl(), apiKey: zenmux.apiKey, maxRetries: 0 });
  const chat = await openai.chat.completions.create({
    model: "openai/gpt-5.4-mini",
    messages: [{ role: "user", content: "hello there" }],
  });
  expect(chat.choices[0].message.content).not.toBe("Hi from the rule");
  const unmatched = await zenmux.unmatched();
  expect(unmatched.map((r) => r.body.messages[0].content)).toEqual(["hello there"]);
  expect((await zenmux.requests()).length).toBe(1);
});

test("the clock, a fault and clear() act for the test, and unused rules are named", async ({ zenmux }) => {
  expect(await zenmux.freezeClock("2026-01-01T00:00:00Z")).toBe(1767225600);
  expect(await zenmux.advanceClock(60)).toBe(1767225660);
  await zenmux.misbehave("refusal");
  const openai = new OpenAI({ baseURL: zenmux.baseUrl(), apiKey: zenmux.apiKey, maxRetries: 0 });
  const chat = await openai.chat.completions.create({
    model: "openai/gpt-5.4-mini",
    messages: [{ role: "user", content: "hello there" }],
  });
  expect(chat.created).toBe(1767225660);
  const [entry] = await zenmux.requests();
  expect(entry.misbehaved).toMatchObject({ fault: "refusal" });
  await zenmux.clear();
  expect(await zenmux.requests()).toEqual([]);
  await zenmux.load("rules:\n  - name: never-asked\n    match: {last_user: never}\n    reply: {content: x}\n");
  await expect(zenmux.assertAllRulesUsed()).rejects.toThrow(/never-asked \(load at .*zenmux\.test\.ts:\d+, line 2 of its YAML\)/);
});

test("a scenario's state is read and set for the test's session alone", async ({ zenmux }) => {
  await zenmux.load(`rules:
  - name: first
    scenario: flow
    when_state: started
    set_state: second
    match: {last_user: step}
    reply: {content: one}
  - name: then
    scenario: flow
    when_state: second
    set_state: started
    match: {last_user: step}
    reply: {content: two}
`);
  expect(await zenmux.state("flow")).toBe("started");
  const openai = new OpenAI({ baseURL: zenmux.baseUrl(), apiKey: zenmux.apiKey, maxRetries: 0 });
  const ask = async () =>
    (await openai.chat.completions.create({ model: "openai/gpt-5.4-mini", messages: [{ role: "user", content: "step" }] }))
      .choices[0].message.content;
  expect(await ask()).toBe("one");
  expect(await zenmux.state("flow")).toBe("second");
  expect(await ask()).toBe("two");
  await zenmux.setState("flow", "second");
  expect(await ask()).toBe("two");
  await expect(zenmux.state("nowhere")).rejects.toThrow(/no rule names scenario "nowhere"/);
});

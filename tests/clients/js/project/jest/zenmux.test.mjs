// The same from Jest: useZenmux() gives each test its session on the run's emulator (the global setup's).
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { useZenmux } from "zenmux-emulator/jest";

const zenmux = useZenmux();

test("a rule answers chat and Anthropic", async () => {
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
  expect(message.content[0].text).toBe("Hi from the rule");
  const requests = await zenmux.requests();
  expect(requests.map((r) => [r.path, r.rule, r.status])).toEqual([
    ["/api/v1/chat/completions", "greet", 200],
    ["/api/anthropic/v1/messages", "greet", 200],
  ]);
  await zenmux.assertAllRulesUsed();
});

test("a second test sees none of the first's requests, nor its rule", async () => {
  expect(await zenmux.requests()).toEqual([]);
  const openai = new OpenAI({ baseURL: zenmux.baseUrl(), apiKey: zenmux.apiKey, maxRetries: 0 });
  const chat = await openai.chat.completions.create({
    model: "openai/gpt-5.4-mini",
    messages: [{ role: "user", content: "hello there" }],
  });
  expect(chat.choices[0].message.content).not.toBe("Hi from the rule");
  expect((await zenmux.unmatched()).length).toBe(1);
  expect((await zenmux.requests()).length).toBe(1);
});

// Fails on purpose: its request matches no rule, and the failure's message must start with the emulator's account.
import OpenAI from "openai";
import { useZenmux } from "zenmux-emulator/jest";

const zenmux = useZenmux();

test("a request no rule matches", async () => {
  await zenmux.addRule({ name: "weather", match: { last_user: "weather" }, reply: { content: "Sunny" } });
  const openai = new OpenAI({ baseURL: zenmux.baseUrl(), apiKey: zenmux.apiKey, maxRetries: 0 });
  const chat = await openai.chat.completions.create({
    model: "openai/gpt-5.4-mini",
    messages: [{ role: "user", content: "what is the time?" }],
  });
  expect(chat.choices[0].message.content).toBe("Sunny");
});

// The Node anthropic SDK (@anthropic-ai/sdk, pinned in clients.lock) with its own defaults against
// the Anthropic face: a plain message, a stream's final message, and a thinking + tool loop.
// Run by tests/clients/test_node_sdk.py: node node_sdk.js SDK_FOLDER BASE_URL SESSION; prints JSON.
const path = require("path");
const [sdkFolder, baseURL, session] = process.argv.slice(2);
const Anthropic = require(path.join(sdkFolder, "node_modules", "@anthropic-ai", "sdk")).default;

async function main() {
  const client = new Anthropic({ baseURL, apiKey: "sk-ai-v1-node", maxRetries: 0,
                                 defaultHeaders: { "X-Emulator-Session": session } });
  const model = "anthropic/claude-sonnet-4.5";
  const plain = await client.messages.create({ model, max_tokens: 256,
                                               messages: [{ role: "user", content: "hello" }] });
  const stream = client.messages.stream({ model, max_tokens: 256, messages: [{ role: "user", content: "hello" }] });
  const streamed = await stream.finalMessage();
  const tools = [{ name: "get_weather", description: "The weather in a city",
                   input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } }];
  const thinking = { type: "enabled", budget_tokens: 2048 };
  const ask = [{ role: "user", content: "What is the weather in Paris?" }];
  const first = await client.messages.create({ model, max_tokens: 4096, thinking, tools, messages: ask });
  const use = first.content.find((block) => block.type === "tool_use");
  const answer = await client.messages.create({ model, max_tokens: 4096, thinking, tools, messages: [
    ...ask, { role: "assistant", content: first.content },
    { role: "user", content: [{ type: "tool_result", tool_use_id: use.id, content: "sunny" }] }] });
  console.log(JSON.stringify({ plain: plain.content[0].text, streamed: streamed.content[0].text,
                               first: first.content.map((b) => b.type), input: use.input,
                               answer: answer.content[answer.content.length - 1].text }));
}

main().catch((error) => { console.error(String(error && error.stack || error)); process.exit(1); });

// The Node anthropic SDK (@anthropic-ai/sdk, pinned in clients.lock) with its own defaults against
// the Anthropic face: a plain message, a stream's final message, a thinking + tool loop, and the
// beta tool runner with its defaults (it keeps the conversation in a message thread).
// Run by tests/clients/test_node_sdk.py: node node_sdk.js SDK_FOLDER BASE_URL SESSION; prints JSON.
const path = require("path");
const [sdkFolder, baseURL, session] = process.argv.slice(2);
const sdk = path.join(sdkFolder, "node_modules", "@anthropic-ai", "sdk");
const Anthropic = require(sdk).default;
const { betaTool } = require(path.join(sdk, "helpers", "beta", "json-schema"));

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
  const cities = [];
  const weather = betaTool({ name: "get_weather", description: "The weather in a city",
                             inputSchema: tools[0].input_schema,
                             run: async ({ city }) => { cities.push(city); return "sunny"; } });
  const runnerClient = new Anthropic({ baseURL, apiKey: "sk-ai-v1-node", maxRetries: 0,
                                       defaultHeaders: { "X-Emulator-Session": `${session}-runner` } });
  const ran = await runnerClient.beta.messages.toolRunner({ model, max_tokens: 1024, tools: [weather], messages: ask })
    .runUntilDone();
  console.log(JSON.stringify({ plain: plain.content[0].text, streamed: streamed.content[0].text,
                               first: first.content.map((b) => b.type), input: use.input,
                               answer: answer.content[answer.content.length - 1].text,
                               runner: { cities, answer: ran.content[ran.content.length - 1].text } }));
}

main().catch((error) => { console.error(String(error && error.stack || error)); process.exit(1); });

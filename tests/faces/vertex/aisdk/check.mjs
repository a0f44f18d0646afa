// @ai-sdk/google against the emulator's Vertex AI / Gemini face: generateText and streamText with a tool.
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { generateText, streamText, tool, stepCountIs } from "ai";
import { z } from "zod";

const google = createGoogleGenerativeAI({ baseURL: process.env.BASE_URL, apiKey: process.env.API_KEY });
const model = google(process.env.MODEL);
const getWeather = tool({
  description: "The weather in a city",
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ result: `sunny in ${city}` }),
});
const plain = await generateText({ model, prompt: "hello gemini" });
const tooled = await generateText({ model, prompt: "What is the weather in Paris?", tools: { get_weather: getWeather },
                                    stopWhen: stepCountIs(3) });
const streamed = streamText({ model, prompt: "What is the weather in Paris?", tools: { get_weather: getWeather },
                              stopWhen: stepCountIs(3) });
let text = "";
for await (const piece of streamed.textStream) text += piece;
console.log(JSON.stringify({ plain: plain.text, tooled: tooled.text, steps: tooled.steps.length,
                             calls: tooled.steps[0].toolCalls.map((c) => [c.toolName, c.input]), streamed: text }));

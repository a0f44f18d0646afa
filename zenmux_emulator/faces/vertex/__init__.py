"""ZenMux's Vertex AI / Gemini face: Google's generateContent, streamGenerateContent and
countTokens at `/api/vertex-ai`, on the Gemini API's and Vertex AI's path forms, and the model lists."""

// The first test of a worker waits for its emulator to start (a Python process: seconds on a loaded machine).
import { defineConfig } from "vitest/config";

export default defineConfig({ test: { testTimeout: 120_000, hookTimeout: 120_000 } });
